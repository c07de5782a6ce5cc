import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  base64url,
  type CryptoKey,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  SignJWT,
} from "jose";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { manualClock } from "../clock.js";
import { KeywardError } from "../errors/keyward-error.js";
import { createJwtVerifier, type JwtOptions, type JwtVerifier } from "./jwt.js";

const NOW = Date.parse("2026-01-01T00:00:00Z");
const nowSec = NOW / 1000;
const SECRET = "a-development-secret-of-32-bytes!";

type SigningKey = CryptoKey | Uint8Array;

function sign(
  key: SigningKey,
  alg: string,
  claims: JWTPayload = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  return new SignJWT({ sub: "user_1", iat: nowSec, exp: nowSec + 300, ...claims })
    .setProtectedHeader({ ...header, alg })
    .sign(key);
}

function encodeJson(value: unknown): string {
  return base64url.encode(JSON.stringify(value));
}

/** A token that claims no signature at all, built by hand as an attacker would. */
function unsignedToken(alg = "none", claims: JWTPayload = {}): string {
  const payload = { sub: "user_1", iat: nowSec, exp: nowSec + 300, ...claims };
  return `${encodeJson({ alg, typ: "JWT" })}.${encodeJson(payload)}.`;
}

/** Asserts the 401 and that nothing of the token leaks into what a response or log line shows. */
async function expectRejected(verify: JwtVerifier, token: string, detail?: string | RegExp) {
  const error = await verify(token).then(
    () => expect.fail("token was accepted"),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(KeywardError);
  const keyward = error as KeywardError;
  expect(keyward.code).toBe("invalid_token");
  expect(keyward.status).toBe(401);
  if (detail !== undefined) expect(keyward.detail).toMatch(detail);
  expect(keyward.headers["WWW-Authenticate"]).toMatch(/^Bearer error="invalid_token"/);
  const shown = `${keyward.message} ${String(keyward.detail)} ${keyward.headers["WWW-Authenticate"]}`;
  if (token.length > 8) {
    for (const part of token.split(".").filter((piece) => piece.length > 8)) {
      expect(shown).not.toContain(part);
    }
  }
  const body = await keyward.toResponse().json();
  expect(body).toEqual({ detail: keyward.detail, code: keyward.code });
  return keyward;
}

async function keyPair(alg: "RS256" | "ES256" | "PS256" | "EdDSA", kid: string) {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
  return { privateKey, publicKey, jwk, kid };
}

/**
 * jose's key set reads `Date.now()` for its cooldown and its cache age: those tests fake `Date`
 * only (timers stay real, so the key server still answers) and move it on by hand, so that they
 * do not depend on how fast the machine runs the steps in between.
 */
function fakeDate() {
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
  return { advance: (ms: number) => vi.setSystemTime(Date.now() + ms) };
}

describe("createJwtVerifier with a secret", () => {
  const clock = manualClock(NOW);
  const secret = new TextEncoder().encode(SECRET);
  const verify = createJwtVerifier({ secret: SECRET }, clock);

  beforeEach(() => clock.set(NOW));

  it("verifies an HS256 token and returns its claims", async () => {
    const claims = await verify(await sign(secret, "HS256", { tier: "pro" }));
    expect(claims).toMatchObject({ sub: "user_1", tier: "pro", exp: nowSec + 300 });
  });

  it("accepts a Uint8Array secret", async () => {
    const bytes = createJwtVerifier({ secret }, clock);
    expect((await bytes(await sign(secret, "HS256"))).sub).toBe("user_1");
  });

  it("refuses alg none, whatever its spelling, with or without a signature", async () => {
    await expectRejected(verify, unsignedToken("none"), "Token algorithm is not accepted");
    await expectRejected(verify, unsignedToken("None"));
    await expectRejected(verify, unsignedToken("NONE"));
    await expectRejected(verify, `${unsignedToken("none")}c2lnbmF0dXJl`);
  });

  it("refuses an RS256 token (no RSA/HMAC confusion)", async () => {
    const { privateKey } = await keyPair("RS256", "rsa-1");
    await expectRejected(
      verify,
      await sign(privateKey, "RS256"),
      "Token algorithm is not accepted",
    );
  });

  it("refuses HS384/HS512 when only HS256 is pinned", async () => {
    await expectRejected(verify, await sign(secret, "HS512"), "Token algorithm is not accepted");
  });

  it("refuses a bad signature", async () => {
    const other = new TextEncoder().encode("another-development-secret-32-bytes");
    await expectRejected(verify, await sign(other, "HS256"), "Token signature is invalid");

    const [header, , signature] = (await sign(secret, "HS256")).split(".");
    const forged = encodeJson({ sub: "admin", exp: nowSec + 300 });
    await expectRejected(verify, `${header}.${forged}.${signature}`, "Token signature is invalid");
  });

  it("refuses an expired token, on the injected clock", async () => {
    await expectRejected(
      verify,
      await sign(secret, "HS256", { exp: nowSec - 1 }),
      "Token has expired",
    );
    await expectRejected(verify, await sign(secret, "HS256", { exp: nowSec }), "Token has expired");

    const token = await sign(secret, "HS256", { exp: nowSec + 60 });
    await expect(verify(token)).resolves.toMatchObject({ sub: "user_1" });
    clock.advance(60_000);
    await expectRejected(verify, token, "Token has expired");
  });

  it("refuses a token that is not yet valid (nbf)", async () => {
    const token = await sign(secret, "HS256", { nbf: nowSec + 30 });
    await expectRejected(verify, token, "Token is not yet valid");
    clock.advance(30_000);
    await expect(verify(token)).resolves.toMatchObject({ sub: "user_1" });
  });

  it("requires a non-empty string sub", async () => {
    await expectRejected(
      verify,
      await sign(secret, "HS256", { sub: undefined }),
      "Token has no subject",
    );
    await expectRejected(verify, await sign(secret, "HS256", { sub: "" }), "Token has no subject");
    const numeric = await sign(secret, "HS256", { sub: 42 as unknown as string });
    await expectRejected(verify, numeric, "Token has no subject");
  });

  it.each([
    ["NUL", "user\u0000", "Token subject contains a control character (U+0000)"],
    ["a line break", "user\n", "Token subject contains a control character (U+000A)"],
    [
      "a bidi override",
      "user\u202e",
      "Token subject contains a bidirectional override, embedding or isolate character (U+202E)",
    ],
    [
      "a lone surrogate",
      "user\udfff",
      "Token subject contains a lone surrogate (the text is not valid Unicode) (U+DFFF)",
    ],
    ["256 characters", "u".repeat(256), "Token subject is longer than 255 characters"],
    ["5,000 characters", "u".repeat(5_000), "Token subject is longer than 255 characters"],
  ])("refuses a sub with %s, as no store could keep it", async (_, sub, detail) => {
    await expectRejected(verify, await sign(secret, "HS256", { sub }), detail);
  });

  it("accepts a sub of 255 characters, counted as code points", async () => {
    for (const sub of ["u".repeat(255), "🔑".repeat(255), "auth0|5f7c8ec7c33c6c004bbafe82"]) {
      await expect(verify(await sign(secret, "HS256", { sub }))).resolves.toMatchObject({ sub });
    }
  });

  it.each([
    "",
    "garbage",
    "a.b",
    "a.b.c",
    "a.b.c.d.e",
    "....",
    "eyJ.eyJ.",
    `${encodeJson("not an object")}.${encodeJson({ sub: "x" })}.sig`,
    `${encodeJson({ alg: "HS256" })}.${encodeJson(["sub"])}.sig`,
    `${encodeJson({ alg: "HS256" })}.not-base64!.sig`,
    "sk_live_4eC39HqLyjWDarjtT1zdp7dcAbCdEf123456",
  ])("refuses garbage %#", async (token) => {
    await expectRejected(verify, token);
  });

  it("refuses a signed token with a garbage claims set", async () => {
    const header = encodeJson({ alg: "HS256" });
    const payload = base64url.encode("not json");
    const key = await crypto.subtle.importKey(
      "raw",
      secret,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const mac = await crypto.subtle.sign(
      "HMAC",
      key,
      new TextEncoder().encode(`${header}.${payload}`),
    );
    await expectRejected(
      verify,
      `${header}.${payload}.${base64url.encode(new Uint8Array(mac))}`,
      "Token is malformed",
    );
  });

  it("refuses a non-string token at run time", async () => {
    await expectRejected(verify, 42 as unknown as string, "Token is invalid");
  });

  it("checks the issuer and audience when configured", async () => {
    const strict = createJwtVerifier(
      { secret: SECRET, issuer: "https://auth.example.com/", audience: ["api", "admin"] },
      clock,
    );
    const good = { iss: "https://auth.example.com/", aud: "api" };
    await expect(strict(await sign(secret, "HS256", good))).resolves.toMatchObject(good);
    await expect(
      strict(await sign(secret, "HS256", { ...good, aud: ["other", "admin"] })),
    ).resolves.toBeTruthy();

    const wrongIss = await sign(secret, "HS256", { ...good, iss: "https://evil.example.com/" });
    await expectRejected(strict, wrongIss, "Token issuer is not accepted");
    await expectRejected(
      strict,
      await sign(secret, "HS256", { aud: "api" }),
      "Token issuer is not accepted",
    );
    const wrongAud = await sign(secret, "HS256", { ...good, aud: "someone-else" });
    await expectRejected(strict, wrongAud, "Token audience is not accepted");
    const noAud = await sign(secret, "HS256", { iss: good.iss });
    await expectRejected(strict, noAud, "Token audience is not accepted");
  });

  it("honours the clock tolerance, in seconds or as a duration", async () => {
    const expiredBy20s = await sign(secret, "HS256", { exp: nowSec - 20 });
    const validIn20s = await sign(secret, "HS256", { nbf: nowSec + 20 });

    const lenient = createJwtVerifier({ secret: SECRET, clockTolerance: 30 }, clock);
    await expect(lenient(expiredBy20s)).resolves.toBeTruthy();
    await expect(lenient(validIn20s)).resolves.toBeTruthy();

    const minute = createJwtVerifier({ secret: SECRET, clockTolerance: "1m" }, clock);
    await expect(minute(expiredBy20s)).resolves.toBeTruthy();

    const tight = createJwtVerifier({ secret: SECRET, clockTolerance: "10s" }, clock);
    await expectRejected(tight, expiredBy20s, "Token has expired");
    await expectRejected(tight, validIn20s, "Token is not yet valid");

    clock.advance(15_000); // now 35 s past exp: beyond even the lenient 30 s
    await expectRejected(lenient, expiredBy20s, "Token has expired");
  });

  it("accepts a token without exp by default, and refuses it with requireExp", async () => {
    const noExp = await sign(secret, "HS256", { exp: undefined });
    await expect(verify(noExp)).resolves.toMatchObject({ sub: "user_1" });
    const strict = createJwtVerifier({ secret: SECRET, requireExp: true }, clock);
    await expectRejected(strict, noExp, "Token has no expiry (exp claim)");
    await expect(strict(await sign(secret, "HS256"))).resolves.toMatchObject({ sub: "user_1" });
    await expectRejected(strict, await sign(secret, "HS256", { exp: nowSec }), "Token has expired");
    const off = createJwtVerifier({ secret: SECRET, requireExp: false }, clock);
    await expect(off(noExp)).resolves.toBeTruthy();
  });

  it("caps a token's age from its iat with maxTokenAge", async () => {
    const capped = createJwtVerifier({ secret: SECRET, maxTokenAge: "1h" }, clock);
    // Long-lived by its exp, but issued two hours ago.
    const old = await sign(secret, "HS256", { iat: nowSec - 7_200, exp: nowSec + 86_400 });
    await expectRejected(capped, old, "Token is older than the maximum token age");
    await expect(verify(old)).resolves.toBeTruthy();

    const recent = await sign(secret, "HS256", { iat: nowSec - 3_600 });
    await expect(capped(recent)).resolves.toMatchObject({ sub: "user_1" });
    clock.advance(1_000);
    await expectRejected(capped, recent, "Token is older than the maximum token age");
  });

  it("refuses a token without iat, or with one in the future, once maxTokenAge is set", async () => {
    const capped = createJwtVerifier({ secret: SECRET, maxTokenAge: 600 }, clock);
    const noIat = await sign(secret, "HS256", { iat: undefined });
    await expect(verify(noIat)).resolves.toBeTruthy();
    await expectRejected(capped, noIat, "Token has no issue time (iat claim)");
    const future = await sign(secret, "HS256", { iat: nowSec + 60 });
    await expectRejected(capped, future, "Token issue time (iat claim) is in the future");
    const textual = await sign(secret, "HS256", { iat: "yesterday" as unknown as number });
    await expectRejected(capped, textual, "Token issue time (iat claim) is invalid");
  });

  it("applies the clock tolerance to maxTokenAge, and reads days", async () => {
    const week = await sign(secret, "HS256", { iat: nowSec - 7 * 86_400 - 20 });
    const strict = createJwtVerifier({ secret: SECRET, maxTokenAge: "7d" }, clock);
    await expectRejected(strict, week, "Token is older than the maximum token age");
    const lenient = createJwtVerifier(
      { secret: SECRET, maxTokenAge: "7 days", clockTolerance: "30s" },
      clock,
    );
    await expect(lenient(week)).resolves.toBeTruthy();
  });

  it("verifies HS512 with a 64-byte secret when pinned to it", async () => {
    const long = "x".repeat(64);
    const hs512 = createJwtVerifier({ secret: long, algorithms: ["HS512"] }, clock);
    await expect(hs512(await sign(new TextEncoder().encode(long), "HS512"))).resolves.toBeTruthy();
    await expectRejected(hs512, await sign(new TextEncoder().encode(long), "HS256"));
  });
});

describe("createJwtVerifier with a JWKS", () => {
  const clock = manualClock(NOW);
  let server: Server;
  let url: string;
  let jwks: { keys: JWK[] } = { keys: [] };
  let fetches = 0;
  let status = 200;
  let rsa: Awaited<ReturnType<typeof keyPair>>;
  let ec: Awaited<ReturnType<typeof keyPair>>;

  beforeAll(async () => {
    rsa = await keyPair("RS256", "rsa-2026-01");
    ec = await keyPair("ES256", "ec-2026-01");
    server = createServer((_request, response) => {
      fetches += 1;
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(jwks));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    jwks = { keys: [rsa.jwk, ec.jwk] };
    fetches = 0;
    status = 200;
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it("verifies RS256 and ES256 tokens and caches the key set", async () => {
    const verify = createJwtVerifier({ jwksUrl: url }, clock);
    const rsaToken = await sign(rsa.privateKey, "RS256", { tier: "free" }, { kid: rsa.kid });
    const ecToken = await sign(ec.privateKey, "ES256", {}, { kid: ec.kid });

    expect(await verify(rsaToken)).toMatchObject({ sub: "user_1", tier: "free" });
    expect(fetches).toBe(1);
    expect((await verify(ecToken)).sub).toBe("user_1");
    expect(await verify(rsaToken)).toMatchObject({ sub: "user_1" });
    expect(fetches).toBe(1); // known kids: served from the cache
  });

  it("picks up a rotated signing key without a restart, after the cooldown", async () => {
    // Keys and tokens first: RSA key generation can take longer than the cooldown itself.
    const next = await keyPair("RS256", "rsa-2026-02");
    const before = await sign(rsa.privateKey, "RS256", {}, { kid: rsa.kid });
    const after = await sign(next.privateKey, "RS256", {}, { kid: next.kid });
    const date = fakeDate();
    const verify = createJwtVerifier({ jwksUrl: new URL(url), cooldownMs: 200 }, clock);
    await expect(verify(before)).resolves.toBeTruthy();
    expect(fetches).toBe(1);

    jwks = { keys: [next.jwk] };

    // Inside the cooldown an unknown kid does not trigger a fetch (no refetch storm).
    await expectRejected(verify, after, "Token signing key is unknown");
    expect(fetches).toBe(1);

    date.advance(199);
    await expectRejected(verify, after, "Token signing key is unknown");
    expect(fetches).toBe(1);

    date.advance(2);
    await expect(verify(after)).resolves.toMatchObject({ sub: "user_1" });
    expect(fetches).toBe(2);
    await expect(verify(after)).resolves.toBeTruthy();
    expect(fetches).toBe(2);

    // The retired key is gone from the refreshed set.
    await expectRejected(verify, before, "Token signing key is unknown");
  });

  it("refetches once the cache is older than cacheMaxAgeMs", async () => {
    const token = await sign(rsa.privateKey, "RS256", {}, { kid: rsa.kid });
    const date = fakeDate();
    const verify = createJwtVerifier({ jwksUrl: url, cacheMaxAgeMs: 30 }, clock);
    await verify(token);
    date.advance(29);
    await verify(token);
    expect(fetches).toBe(1);
    date.advance(2);
    await verify(token);
    expect(fetches).toBe(2);
  });

  it("refuses alg none", async () => {
    const verify = createJwtVerifier({ jwksUrl: url }, clock);
    await expectRejected(verify, unsignedToken("none"), "Token algorithm is not accepted");
    expect(fetches).toBe(0); // refused before any key is looked up
  });

  it("refuses an HS256 token keyed with the RSA public key (algorithm confusion)", async () => {
    const verify = createJwtVerifier({ jwksUrl: url }, clock);
    const pem = new TextEncoder().encode(await exportSPKI(rsa.publicKey));
    const jwkBytes = new TextEncoder().encode(JSON.stringify(rsa.jwk));
    for (const hmacKey of [pem, jwkBytes]) {
      const forged = await sign(hmacKey, "HS256", { sub: "admin" }, { kid: rsa.kid });
      await expectRejected(verify, forged, "Token algorithm is not accepted");
    }
  });

  it("refuses a bad signature, an unknown kid, and expired or mis-addressed tokens", async () => {
    const verify = createJwtVerifier(
      { jwksUrl: url, issuer: "https://idp.test/", audience: "api" },
      clock,
    );
    const claims = { iss: "https://idp.test/", aud: "api" };
    await expect(
      verify(await sign(rsa.privateKey, "RS256", claims, { kid: rsa.kid })),
    ).resolves.toBeTruthy();

    const impostor = await keyPair("RS256", rsa.kid);
    const badSignature = await sign(impostor.privateKey, "RS256", claims, { kid: rsa.kid });
    await expectRejected(verify, badSignature, "Token signature is invalid");
    const unknownKid = await sign(impostor.privateKey, "RS256", claims, { kid: "nobody" });
    await expectRejected(verify, unknownKid, "Token signing key is unknown");
    const expired = await sign(
      rsa.privateKey,
      "RS256",
      { ...claims, exp: nowSec - 1 },
      { kid: rsa.kid },
    );
    await expectRejected(verify, expired, "Token has expired");
    const wrongIss = await sign(
      rsa.privateKey,
      "RS256",
      { ...claims, iss: "https://x.test/" },
      { kid: rsa.kid },
    );
    await expectRejected(verify, wrongIss, "Token issuer is not accepted");
    const wrongAud = await sign(
      rsa.privateKey,
      "RS256",
      { ...claims, aud: "other" },
      { kid: rsa.kid },
    );
    await expectRejected(verify, wrongAud, "Token audience is not accepted");
    const noSub = await sign(
      rsa.privateKey,
      "RS256",
      { ...claims, sub: undefined },
      { kid: rsa.kid },
    );
    await expectRejected(verify, noSub, "Token has no subject");
  });

  it("ignores a key embedded in the token header", async () => {
    const verify = createJwtVerifier({ jwksUrl: url }, clock);
    const attacker = await keyPair("RS256", "attacker");
    const token = await sign(attacker.privateKey, "RS256", {}, { jwk: attacker.jwk, kid: rsa.kid });
    await expectRejected(verify, token, "Token signature is invalid");
  });

  it("answers 500 without internals when the key set cannot be fetched", async () => {
    status = 500;
    const verify = createJwtVerifier({ jwksUrl: url }, clock);
    const token = await sign(rsa.privateKey, "RS256", {}, { kid: rsa.kid });
    for (const candidate of [
      verify,
      createJwtVerifier({ jwksUrl: "http://127.0.0.1:1/jwks.json" }, clock),
    ]) {
      const error = await candidate(token).then(
        () => expect.fail("token was accepted"),
        (thrown: unknown) => thrown as KeywardError,
      );
      expect(error).toBeInstanceOf(KeywardError);
      expect(error).toMatchObject({
        code: "internal",
        status: 500,
        detail: "Internal server error",
      });
      expect(error.cause).toBeInstanceOf(Error);
    }
  });
});

describe("createJwtVerifier with a key", () => {
  const clock = manualClock(NOW);

  it("verifies with a public RSA CryptoKey and refuses HMAC confusion", async () => {
    const { privateKey, publicKey } = await keyPair("RS256", "k");
    const verify = createJwtVerifier({ key: publicKey }, clock);
    await expect(verify(await sign(privateKey, "RS256"))).resolves.toMatchObject({ sub: "user_1" });
    const pem = new TextEncoder().encode(await exportSPKI(publicKey));
    await expectRejected(verify, await sign(pem, "HS256"), "Token algorithm is not accepted");
    await expectRejected(verify, unsignedToken("none"), "Token algorithm is not accepted");
  });

  it("verifies with a public EC JWK and pins the JWK's own alg", async () => {
    const { privateKey, jwk } = await keyPair("ES256", "k");
    const verify = createJwtVerifier({ key: jwk }, clock);
    await expect(verify(await sign(privateKey, "ES256"))).resolves.toBeTruthy();
    expect(Object.isFrozen(jwk)).toBe(false); // the caller's object is left alone
  });

  it("pins an RSA JWK with alg RS256 to RS256 only", async () => {
    const { privateKey, jwk } = await keyPair("RS256", "k");
    const verify = createJwtVerifier({ key: jwk }, clock);
    await expect(verify(await sign(privateKey, "RS256"))).resolves.toBeTruthy();
    // The same RSA key material, signing with PSS instead.
    const pss = await importJWK(await exportJWK(privateKey), "PS256");
    await expectRejected(
      verify,
      await sign(pss as CryptoKey, "PS256"),
      "Token algorithm is not accepted",
    );
  });

  it("verifies EdDSA with an Ed25519 key", async () => {
    const { privateKey, publicKey } = await keyPair("EdDSA", "k");
    const verify = createJwtVerifier({ key: publicKey }, clock);
    await expect(verify(await sign(privateKey, "EdDSA"))).resolves.toBeTruthy();
  });

  it("treats a Uint8Array or an oct JWK as an HMAC secret", async () => {
    const secret = new TextEncoder().encode(SECRET);
    const fromBytes = createJwtVerifier({ key: secret }, clock);
    await expect(fromBytes(await sign(secret, "HS256"))).resolves.toBeTruthy();
    const fromJwk = createJwtVerifier({ key: { kty: "oct", k: base64url.encode(secret) } }, clock);
    await expect(fromJwk(await sign(secret, "HS256"))).resolves.toBeTruthy();
  });

  it("verifies with an HMAC CryptoKey", async () => {
    const secret = new TextEncoder().encode(SECRET);
    const key = await crypto.subtle.importKey(
      "raw",
      secret,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["verify"],
    );
    const verify = createJwtVerifier({ key }, clock);
    await expect(verify(await sign(secret, "HS256"))).resolves.toBeTruthy();
  });
});

describe("createJwtVerifier options", () => {
  const jwksUrl = "https://auth.example.com/.well-known/jwks.json";

  it.each<[string, unknown, RegExp]>([
    ["no options", undefined, /options are required/],
    ["no key at all", {}, /exactly one of secret, jwksUrl or key/],
    ["an undefined secret", { secret: undefined }, /environment variable/],
    ["two kinds of key", { secret: SECRET, jwksUrl }, /exactly one of/],
    ["an empty secret", { secret: "" }, /at least 32 bytes/],
    ["a short secret", { secret: "short" }, /at least 32 bytes/],
    ["a 31-byte secret", { secret: "x".repeat(31) }, /at least 32 bytes/],
    [
      "a secret too short for HS512",
      { secret: SECRET, algorithms: ["HS512"] },
      /at least 64 bytes/,
    ],
    ["a secret of the wrong type", { secret: 42 }, /string or a Uint8Array/],
    ["alg none with a secret", { secret: SECRET, algorithms: ["none"] }, /must not include "none"/],
    ["alg none with a JWKS", { jwksUrl, algorithms: ["RS256", "none"] }, /must not include "none"/],
    ["an empty algorithm list", { secret: SECRET, algorithms: [] }, /non-empty list/],
    [
      "an unknown algorithm",
      { secret: SECRET, algorithms: ["HS999"] },
      /unsupported algorithm HS999/,
    ],
    ["RS256 with a secret", { secret: SECRET, algorithms: ["RS256"] }, /RS256 cannot be used/],
    ["HS256 with a JWKS", { jwksUrl, algorithms: ["RS256", "HS256"] }, /HMAC/],
    ["an invalid JWKS URL", { jwksUrl: "not a url" }, /not a valid URL/],
    ["a plain-http JWKS URL", { jwksUrl: "http://auth.example.com/jwks.json" }, /https/],
    ["a non-http JWKS URL", { jwksUrl: "ftp://auth.example.com/jwks.json" }, /https/],
    ["a negative cooldown", { jwksUrl, cooldownMs: -1 }, /cooldownMs/],
    ["a NaN cache age", { jwksUrl, cacheMaxAgeMs: Number.NaN }, /cacheMaxAgeMs/],
    ["a fractional timeout", { jwksUrl, timeoutMs: 1.5 }, /timeoutMs/],
    ["an empty issuer", { secret: SECRET, issuer: "" }, /jwt.issuer/],
    ["an empty audience list", { secret: SECRET, audience: [] }, /jwt.audience/],
    ["a negative tolerance", { secret: SECRET, clockTolerance: -1 }, /clockTolerance/],
    ["a NaN tolerance", { secret: SECRET, clockTolerance: Number.NaN }, /clockTolerance/],
    ["an unreadable tolerance", { secret: SECRET, clockTolerance: "soon" }, /clockTolerance/],
    ["a non-boolean requireExp", { secret: SECRET, requireExp: "yes" }, /jwt.requireExp/],
    ["a zero maxTokenAge", { secret: SECRET, maxTokenAge: 0 }, /jwt.maxTokenAge/],
    ["a negative maxTokenAge", { secret: SECRET, maxTokenAge: -60 }, /jwt.maxTokenAge/],
    ["an unreadable maxTokenAge", { secret: SECRET, maxTokenAge: "a while" }, /jwt.maxTokenAge/],
    ["a maxTokenAge in months", { secret: SECRET, maxTokenAge: "1 month" }, /jwt.maxTokenAge/],
    ["a key of the wrong type", { key: "secret" }, /CryptoKey, a JSON Web Key or a Uint8Array/],
    ["a short oct JWK", { key: { kty: "oct", k: base64url.encode("short") } }, /at least 32 bytes/],
    [
      "an encryption JWK",
      { key: { kty: "RSA", n: "x", e: "AQAB", use: "enc" } },
      /"use" must be "sig"/,
    ],
    [
      "a JWK without verify",
      { key: { kty: "RSA", n: "x", e: "AQAB", key_ops: ["encrypt"] } },
      /key_ops/,
    ],
    ["a private JWK", { key: { kty: "EC", crv: "P-256", x: "x", y: "y", d: "d" } }, /public JWK/],
    [
      "a JWK alg that misfits its kty",
      { key: { kty: "EC", crv: "P-256", x: "x", y: "y", alg: "RS256" } },
      /does not fit/,
    ],
    ["a JWK alg none", { key: { kty: "RSA", n: "x", e: "AQAB", alg: "none" } }, /does not fit/],
    [
      "an unsupported curve",
      { key: { kty: "EC", crv: "secp256k1", x: "x", y: "y" } },
      /unsupported JWK/,
    ],
    [
      "HS256 with an RSA JWK",
      { key: { kty: "RSA", n: "x", e: "AQAB" }, algorithms: ["HS256"] },
      /cannot be used/,
    ],
  ])("throws a TypeError for %s", (_name, options, message) => {
    expect(() => createJwtVerifier(options as JwtOptions)).toThrow(TypeError);
    expect(() => createJwtVerifier(options as JwtOptions)).toThrow(message);
  });

  it("refuses RSA keys under 2048 bits", async () => {
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
    expect(() => createJwtVerifier({ key: publicKey })).toThrow(/2048 bits/);
    const jwk = await crypto.subtle.exportKey("jwk", publicKey);
    expect(() => createJwtVerifier({ key: { kty: "RSA", n: jwk.n, e: jwk.e } })).toThrow(
      /2048 bits/,
    );
  });

  it("refuses a private CryptoKey and a key used with another key's algorithm", async () => {
    const { privateKey, publicKey } = await keyPair("ES256", "k");
    expect(() => createJwtVerifier({ key: privateKey })).toThrow(/public key/);
    expect(() => createJwtVerifier({ key: publicKey, algorithms: ["RS256"] })).toThrow(
      /cannot be used/,
    );
    expect(() => createJwtVerifier({ key: publicKey, algorithms: ["HS256"] })).toThrow(TypeError);
  });

  it("accepts loopback http JWKS URLs and Infinity as a cache age", () => {
    expect(() => createJwtVerifier({ jwksUrl: "http://localhost:4000/jwks" })).not.toThrow();
    expect(() =>
      createJwtVerifier({ jwksUrl: "http://[::1]/jwks", cacheMaxAgeMs: Infinity }),
    ).not.toThrow();
  });
});
