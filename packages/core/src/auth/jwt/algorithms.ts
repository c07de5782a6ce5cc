/**
 * Algorithm pinning. jose refuses a token whose `alg` is not in the list it is given, before any
 * key is looked up; this file decides that list, from the configuration and the kind of key, so a
 * token can never choose how it is checked: no `alg: none`, and no HMAC token "signed" with a public
 * key (algorithm confusion). jose leaves the list to its caller, and accepts any it is given.
 */
import type { JWTVerifyGetKey, KeyInput } from "jose";

export const hmacAlgorithms = ["HS256", "HS384", "HS512"] as const;
export const asymmetricAlgorithms = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
] as const;

/** The JWS algorithms Keyward verifies (everything Web Crypto offers on all supported runtimes). */
export type JwtAlgorithm = (typeof hmacAlgorithms)[number] | (typeof asymmetricAlgorithms)[number];

/** A verification key for jose together with the only algorithms it may verify. */
export interface PinnedKey {
  key: KeyInput | JWTVerifyGetKey;
  algorithms: JwtAlgorithm[];
}

export function isJwtAlgorithm(value: unknown): value is JwtAlgorithm {
  return (
    hmacAlgorithms.includes(value as "HS256") || asymmetricAlgorithms.includes(value as "RS256")
  );
}

/** What a JWK of this `kty` (and `crv`) can verify; empty when Keyward does not take it. */
export function jwkAlgorithms(kty: unknown, crv: unknown): JwtAlgorithm[] {
  if (kty === "RSA") return ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];
  if (kty === "EC") return curveAlgorithms(crv);
  if (kty === "OKP" && crv === "Ed25519") return ["EdDSA", "Ed25519"];
  return [];
}

/** What a Web Crypto key of this algorithm can verify; empty when Keyward does not take it. */
export function cryptoKeyAlgorithms(algorithm: {
  name: string;
  hash?: { name: string };
  namedCurve?: string;
}): JwtAlgorithm[] {
  // An RSA or HMAC key is bound to one hash, which names its algorithm: RS256 hashes with SHA-256.
  const hashed = (prefix: string) =>
    [`${prefix}${algorithm.hash?.name.replace("SHA-", "")}`].filter(isJwtAlgorithm);
  switch (algorithm.name) {
    case "HMAC":
      return hashed("HS");
    case "RSASSA-PKCS1-v1_5":
      return hashed("RS");
    case "RSA-PSS":
      return hashed("PS");
    case "ECDSA":
      return curveAlgorithms(algorithm.namedCurve);
    case "Ed25519":
      return ["EdDSA", "Ed25519"];
    default:
      return [];
  }
}

/** The algorithms an elliptic curve signs with: one per curve (RFC 7518 §3.4). */
function curveAlgorithms(curve: unknown): JwtAlgorithm[] {
  if (curve === "P-256") return ["ES256"];
  if (curve === "P-384") return ["ES384"];
  if (curve === "P-521") return ["ES512"];
  return [];
}

/**
 * The configured `algorithms`, or `defaults` when there are none, after checking that each one is
 * known, is not `none`, and is one `allowed` for this key (`what` names the key in the message).
 */
export function pinAlgorithms(
  configured: unknown,
  allowed: readonly JwtAlgorithm[],
  defaults: readonly JwtAlgorithm[],
  what: string,
): JwtAlgorithm[] {
  if (configured === undefined) return [...defaults];
  if (!Array.isArray(configured) || configured.length === 0) {
    throw new TypeError("jwt.algorithms must be a non-empty list");
  }
  for (const alg of configured) {
    if (typeof alg === "string" && alg.toLowerCase() === "none") {
      throw new TypeError(
        'jwt.algorithms must not include "none": unsigned tokens are never accepted',
      );
    }
    if (!isJwtAlgorithm(alg))
      throw new TypeError(`jwt.algorithms: unsupported algorithm ${String(alg)}`);
    if (!allowed.includes(alg))
      throw new TypeError(`jwt.algorithms: ${alg} cannot be used with ${what}`);
  }
  return [...new Set(configured as JwtAlgorithm[])];
}
