/**
 * The secret-scanning endpoint in workerd, Cloudflare's runtime: the signature checked with
 * WebCrypto, the report validated by the jitless schemas (a Worker refuses code generation during
 * a request), the signing keys fetched from a local key server over the Worker's own `fetch`.
 */
import { mintJwt, type ScannerKeyServer, startScannerKeyServer } from "@keyward/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningWorker, runInWorkerd } from "../src/workerd.js";

const jwtSecret = "workers-secret-scanning-secret-of-at-least-32-bytes";
let keys: ScannerKeyServer;
let worker: RunningWorker;
let output = "";

beforeAll(async () => {
  keys = await startScannerKeyServer();
  worker = await runInWorkerd({
    bindings: { KEYWARD_JWT_SECRET: jwtSecret, KEYWARD_SECRET_SCANNING_KEYS_URL: keys.url },
    fromSource: true,
    allowLoopbackFetch: true,
    onOutput: (text) => {
      output += text;
    },
  });
});
afterAll(async () => {
  await worker?.stop();
  await keys?.close();
});

const base = () => `${worker.origin}/api/v1/api-keys`;
const report = async (body: string, signed = true) =>
  fetch(`${base()}/secret-scanning`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(signed ? await keys.sign(body) : {}) },
    body,
  });

it("revokes a leaked key and labels each token, in workerd", async () => {
  const authorization = `Bearer ${await mintJwt(jwtSecret, { sub: "user_workerd", tier: "free" })}`;
  const created = await fetch(base(), {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify({ name: "leaky", scopes: ["profile:read"], tier: "free" }),
  });
  expect(created.status).toBe(201);
  const key = (await created.json()) as { id: string; key: string };
  const forged = key.key.slice(0, -1) + (key.key.endsWith("A") ? "B" : "A");

  expect((await report("[]", false)).status).toBe(401);
  const malformed = await report(JSON.stringify([{ token: 1 }]));
  expect(malformed.status).toBe(422);

  const reply = await report(
    JSON.stringify([
      {
        token: key.key,
        type: "keyward_api_key",
        url: "https://github.com/o/r/1",
        source: "content",
      },
      { token: forged, type: "keyward_api_key" },
    ]),
  );
  expect(reply.status).toBe(200);
  expect(((await reply.json()) as { label: string }[]).map((entry) => entry.label)).toEqual([
    "true_positive",
    "false_positive",
  ]);
  const list = (await (await fetch(base(), { headers: { authorization } })).json()) as {
    data: { id: string; status: string }[];
  };
  expect(list.data.find((record) => record.id === key.id)?.status).toBe("revoked");
  const events = (await (
    await fetch(`${base()}/${key.id}/events`, { headers: { authorization } })
  ).json()) as { data: { type: string; actor: unknown }[] };
  expect(events.data.map((event) => event.type).sort()).toEqual([
    "key.created",
    "key.leaked",
    "key.revoked",
  ]);
  expect(output).not.toMatch(/uncaught exception|EvalError|Code generation/i);
});
