import { exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { givenKey } from "./key.js";

async function signer(alg: "ES256" | "RS256") {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const token = await new SignJWT({ sub: "user_1" }).setProtectedHeader({ alg }).sign(privateKey);
  return { privateKey, publicKey, jwk: await exportJWK(publicKey), token };
}

type Signer = Awaited<ReturnType<typeof signer>>;

/** Keys that jose refuses for what is named, each made from a good ES256 key pair. */
const wrongKeys: [string, (pair: Signer) => Promise<unknown>][] = [
  ["a JWK for encryption", async ({ jwk }) => ({ ...jwk, use: "enc" })],
  ["a JWK without verify", async ({ jwk }) => ({ ...jwk, key_ops: ["sign"] })],
  ["a JWK naming another alg", async ({ jwk }) => ({ ...jwk, alg: "ES384" })],
  ["a private JWK", async ({ privateKey }) => exportJWK(privateKey)],
  ["a private CryptoKey", async ({ privateKey }) => privateKey],
  [
    "a CryptoKey without the verify usage",
    async ({ jwk }) =>
      crypto.subtle.importKey("jwk", jwk, { name: "ECDSA", namedCurve: "P-256" }, true, []),
  ],
];

describe("the start-up checks of jwt.key, against jose", () => {
  // jose makes these checks when a token arrives; the verifier makes them at start-up. Each key
  // here is refused by both, and the same key unchanged is accepted by both, so the start-up
  // checks neither refuse a key jose would take nor miss one it refuses.
  it.each(wrongKeys)("%s: refused at start-up and by jose", async (_, wrong) => {
    const pair = await signer("ES256");
    expect(() => givenKey(pair.jwk, undefined)).not.toThrow();
    await expect(jwtVerify(pair.token, pair.jwk as JWK)).resolves.toBeTruthy();

    const key = await wrong(pair);
    expect(() => givenKey(key, undefined)).toThrow(TypeError);
    await expect(jwtVerify(pair.token, key as JWK)).rejects.toThrow(TypeError);
  });

  it("an RSA key under 2048 bits: refused at start-up and by jose, as a CryptoKey or a JWK", async () => {
    // jose will not generate such a key; Web Crypto will. jose measures the key before it checks
    // the signature, so a token from another key shows its refusal.
    const { publicKey } = await crypto.subtle.generateKey(
      {
        name: "RSASSA-PKCS1-v1_5",
        modulusLength: 1024,
        publicExponent: new Uint8Array([1, 0, 1]),
        hash: "SHA-256",
      },
      true,
      ["sign", "verify"],
    );
    const enough = await signer("RS256");
    for (const key of [publicKey, await exportJWK(publicKey)]) {
      expect(() => givenKey(key, undefined)).toThrow("RSA keys must be at least 2048 bits");
      await expect(jwtVerify(enough.token, key as JWK)).rejects.toThrow("2048 bits");
    }
    expect(givenKey(enough.publicKey, undefined).algorithms).toEqual(["RS256"]);
    expect(givenKey(enough.jwk, undefined).algorithms).toContain("RS256");
    for (const key of [enough.publicKey, enough.jwk]) {
      await expect(jwtVerify(enough.token, key as JWK)).resolves.toBeTruthy();
    }
  });
});
