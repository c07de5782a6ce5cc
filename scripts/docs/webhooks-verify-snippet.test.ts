/**
 * docs/webhooks.md shows a receiver's signature check in plain WebCrypto. This test takes that code
 * block as printed, runs it, and checks it against what Keyward really sends: a request signed by
 * `webhookSigner` (the `standardwebhooks` package) passes; a changed body, a wrong secret and a
 * stale timestamp are refused.
 */
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { webhookSigner } from "../../packages/webhooks/src/webhook-signer.js";
import { codeBlocks } from "./code-blocks.js";

type Verify = (request: Request, secret: string) => Promise<{ id: string }>;

async function documentedVerifier(): Promise<Verify> {
  const block = codeBlocks("docs/webhooks.md").find((b) =>
    b.code.includes("async function verifyKeywardWebhook"),
  );
  if (!block) throw new Error("docs/webhooks.md no longer shows verifyKeywardWebhook");
  const { outputText } = ts.transpileModule(`${block.code}\nexport { verifyKeywardWebhook };`, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const module = await import(`data:text/javascript,${encodeURIComponent(outputText)}`);
  return module.verifyKeywardWebhook as Verify;
}

const secret = `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`;
const body = JSON.stringify({ id: "evt_1", type: "key.revoked", data: {} });
const signed = (at: Date, text = body, withSecret = secret) =>
  new Request("https://receiver.example/hooks", {
    method: "POST",
    headers: webhookSigner(withSecret).headers("evt_1", body, at),
    body: text,
  });

describe("docs/webhooks.md: the WebCrypto receiver", () => {
  it("accepts what Keyward signs, and refuses a changed body, another secret and a stale timestamp", async () => {
    const verify = await documentedVerifier();
    expect(await verify(signed(new Date()), secret)).toMatchObject({ id: "evt_1" });
    await expect(
      verify(signed(new Date(), body.replace("revoked", "created")), secret),
    ).rejects.toThrow(/bad signature/);
    const other = `whsec_${btoa("o".repeat(32))}`;
    await expect(verify(signed(new Date(), body, other), secret)).rejects.toThrow(/bad signature/);
    await expect(verify(signed(new Date(Date.now() - 600_000)), secret)).rejects.toThrow(/stale/);
  });
});
