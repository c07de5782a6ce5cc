/**
 * `jwt.key`: one verification key, a `CryptoKey`, a JWK or raw HMAC bytes. The algorithms it may
 * verify follow from the key itself (pinning, ours). jose checks the key against each token: a
 * JWK's `use`, `key_ops` and `alg`, public rather than private, RSA at least 2048 bits. It does so
 * only once a token arrives, though, so a wrong key would be a 401 on every request. The checks
 * marked "jose, later" make those same refusals as the verifier is created, so the mistake is a
 * `TypeError` at start-up; `key.test.ts` shows that jose refuses every key they refuse.
 */
import { base64url, type JWK } from "jose";
import {
  cryptoKeyAlgorithms,
  hmacAlgorithms,
  type JwtAlgorithm,
  jwkAlgorithms,
  type PinnedKey,
  pinAlgorithms,
} from "./algorithms.js";
import { hmacKey, minimumSecretBytes } from "./secret.js";

/** Whatever Web Crypto says about a key: RSA keys have a modulus length, HMAC keys a length. */
type WebCryptoAlgorithm = KeyAlgorithm & Partial<RsaHashedKeyAlgorithm & HmacKeyAlgorithm>;

export function givenKey(key: unknown, configured: unknown): PinnedKey {
  if (key instanceof Uint8Array) return hmacKey(key, configured, "jwt.key");
  if (isCryptoKey(key)) return cryptoKey(key, configured);
  if (typeof key === "object" && key !== null) return jsonWebKey(key as JsonWebKey, configured);
  throw new TypeError("jwt.key must be a CryptoKey, a JSON Web Key or a Uint8Array");
}

function cryptoKey(key: CryptoKey, configured: unknown): PinnedKey {
  // jose, later: `CryptoKey instances must be of type "public"`, `its usages must include verify`.
  if (key.type === "private")
    throw new TypeError("jwt.key must be a public key, not a private one");
  if (!key.usages.includes("verify")) throw new TypeError('jwt.key must allow the "verify" usage');
  const algorithm = key.algorithm as WebCryptoAlgorithm;
  const family = cryptoKeyAlgorithms(algorithm);
  if (family.length === 0)
    throw new TypeError(`jwt.key: unsupported key algorithm ${algorithm.name}`);
  const algorithms = pinAlgorithms(configured, family, family, `this jwt.key (${algorithm.name})`);
  earlyRsaSize(algorithm.modulusLength);
  if (algorithm.name === "HMAC") {
    const minimum = minimumSecretBytes[algorithms[0]!] ?? 0;
    if ((algorithm.length ?? 0) / 8 < minimum)
      throw new TypeError(`jwt.key must be at least ${minimum} bytes`);
  }
  return { key, algorithms };
}

function jsonWebKey(jwk: JsonWebKey, configured: unknown): PinnedKey {
  earlyJwkPurpose(jwk);
  const own = jwk.alg === undefined ? undefined : [jwk.alg as JwtAlgorithm];
  if (jwk.kty === "oct") {
    if (typeof jwk.k !== "string") throw new TypeError('jwt.key: an "oct" JWK needs "k"');
    if (own && !hmacAlgorithms.includes(own[0] as "HS256"))
      throw new TypeError("jwt.key: JWK alg mismatch");
    return hmacKey(base64url.decode(jwk.k), configured, "jwt.key", own);
  }
  // jose, later: `JSON Web Key for this operation must be a public JWK`.
  if (jwk.d !== undefined) {
    throw new TypeError("jwt.key must be a public JWK; remove the private members");
  }
  const family = jwkAlgorithms(jwk.kty, jwk.crv);
  if (family.length === 0)
    throw new TypeError(`jwt.key: unsupported JWK kty ${jwk.kty}/${jwk.crv}`);
  if (own && !family.includes(own[0]!))
    throw new TypeError(`jwt.key: JWK alg ${jwk.alg} does not fit its kty`);
  const algorithms = pinAlgorithms(
    configured,
    own ?? family,
    own ?? family,
    `this jwt.key (${jwk.kty})`,
  );
  // Six bits per base64url character of the modulus: jose measures exactly once it has imported
  // the key, this catches the short keys before.
  if (jwk.kty === "RSA") earlyRsaSize(typeof jwk.n === "string" ? jwk.n.length * 6 : 0);
  // jose caches the imported key on this object and freezes it: give it our own copy.
  return { key: structuredClone(jwk) as JWK, algorithms };
}

// jose, later: `its "use" must be "sig" when present`, `its "key_ops" must include "verify"`.
function earlyJwkPurpose(jwk: JsonWebKey): void {
  if (jwk.use !== undefined && jwk.use !== "sig")
    throw new TypeError('jwt.key: JWK "use" must be "sig"');
  if (Array.isArray(jwk.key_ops) && !jwk.key_ops.includes("verify")) {
    throw new TypeError('jwt.key: JWK "key_ops" must include "verify"');
  }
}

// jose, later: `RS256 requires key modulusLength to be 2048 bits or larger`.
function earlyRsaSize(bits: number | undefined): void {
  if (bits !== undefined && bits < 2048) {
    throw new TypeError("jwt.key: RSA keys must be at least 2048 bits");
  }
}

function isCryptoKey(value: unknown): value is CryptoKey {
  return (
    (typeof CryptoKey !== "undefined" && value instanceof CryptoKey) ||
    (typeof value === "object" &&
      value !== null &&
      Object.prototype.toString.call(value) === "[object CryptoKey]")
  );
}
