/**
 * A shared HMAC secret (`jwt.secret`, or raw bytes or an `oct` JWK as `jwt.key`). jose verifies
 * HMAC with a secret of any length; the length rule is ours, because a short secret can be
 * brute-forced offline from a single token.
 */
import type { JWTVerifyGetKey } from "jose";
import { hmacAlgorithms, type JwtAlgorithm, type PinnedKey, pinAlgorithms } from "./algorithms.js";

/** At least as many bytes as the hash's output (RFC 7518 §3.2). */
export const minimumSecretBytes: Record<string, number> = { HS256: 32, HS384: 48, HS512: 64 };

/** `jwt.secret`: a string (its UTF-8 bytes) or a `Uint8Array`. */
export function secretKey(secret: unknown, configured: unknown): PinnedKey {
  const bytes = typeof secret === "string" ? new TextEncoder().encode(secret) : secret;
  if (!(bytes instanceof Uint8Array))
    throw new TypeError("jwt.secret must be a string or a Uint8Array");
  return hmacKey(bytes, configured, "jwt.secret");
}

/**
 * HMAC secret bytes pinned to `allowed` (all HS* unless the key names its own); `what` names the
 * option in messages.
 */
export function hmacKey(
  secret: Uint8Array,
  configured: unknown,
  what: string,
  allowed: readonly JwtAlgorithm[] = hmacAlgorithms,
): PinnedKey {
  const defaults = allowed.length === 1 ? allowed : ["HS256" as const];
  const algorithms = pinAlgorithms(configured, allowed, defaults, `${what} (HMAC)`);
  const minimum = Math.max(...algorithms.map((alg) => minimumSecretBytes[alg] ?? 0));
  if (secret.length < minimum) {
    throw new TypeError(
      `${what} must be at least ${minimum} bytes for ${algorithms.join("/")} (got ${secret.length}); ` +
        "use a long random value, e.g. 32 random bytes in base64",
    );
  }
  // jose imports raw secret bytes again on every verification; import once per algorithm instead.
  // The copy ignores later edits of the caller's array.
  const bytes = new Uint8Array(secret);
  const imported = new Map<string, Promise<CryptoKey>>();
  const key: JWTVerifyGetKey = ({ alg }) => {
    let cached = imported.get(alg);
    if (!cached) {
      const hash = { name: `SHA-${alg.slice(2)}` };
      cached = crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash }, false, ["verify"]);
      imported.set(alg, cached);
    }
    return cached;
  };
  return { key, algorithms };
}
