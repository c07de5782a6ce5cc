import { describe, expect, it } from "vitest";
import { decodeWebhookSecret, webhookSigner } from "./webhook-signer.js";

describe("webhookSigner", () => {
  it("signs the Standard Webhooks test vector", () => {
    // The reference libraries' vector: id, timestamp and body signed with a 24-byte secret.
    const signer = webhookSigner("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    const headers = signer.headers(
      "msg_p5jXN8AQM9LWM0D4loKWxJek",
      '{"test": 2432232314}',
      new Date(1614265330 * 1000),
    );
    expect(headers).toEqual({
      "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
      "webhook-timestamp": "1614265330",
      "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    });
  });

  it("matches an HMAC-SHA256 made with WebCrypto, as a receiver without the package checks it", async () => {
    const secret = `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`;
    const body = JSON.stringify({ id: "evt_1", type: "key.created", data: { name: "ü ✓" } });
    const at = new Date(1_767_225_600_000);
    const { "webhook-signature": signature } = webhookSigner(secret).headers("evt_1", body, at);
    const key = await crypto.subtle.importKey(
      "raw",
      new Uint8Array(decodeWebhookSecret(secret)!),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const mac = await crypto.subtle.sign(
      "HMAC",
      key,
      new TextEncoder().encode(`evt_1.${Math.floor(at.getTime() / 1000)}.${body}`),
    );
    expect(signature).toBe(`v1,${btoa(String.fromCharCode(...new Uint8Array(mac)))}`);
  });

  it("takes only whsec_ secrets of 24 to 64 bytes", () => {
    const ofBytes = (n: number) => `whsec_${btoa("x".repeat(n))}`;
    expect(decodeWebhookSecret(ofBytes(24))).toHaveLength(24);
    expect(decodeWebhookSecret(ofBytes(64))).toHaveLength(64);
    expect(decodeWebhookSecret(ofBytes(23))).toBeUndefined();
    expect(decodeWebhookSecret(ofBytes(65))).toBeUndefined();
    expect(decodeWebhookSecret(btoa("x".repeat(32)))).toBeUndefined();
    expect(decodeWebhookSecret("whsec_not base64!")).toBeUndefined();
  });
});
