/**
 * `jwt.jwksUrl`: public keys fetched from the identity provider. jose fetches, caches and refetches
 * the key set, picks the key by `kid`, `alg`, `kty`, `crv`, `use` and `key_ops`, and checks the
 * cache durations. Ours: the URL rule, the pinned algorithms (never HMAC beside public keys), and
 * telling a key set out of reach (our outage: 500) from a token naming a key it does not have (401).
 */
import { createRemoteJWKSet, type JWTVerifyGetKey, type RemoteJWKSetOptions } from "jose";
import { asymmetricAlgorithms, type PinnedKey, pinAlgorithms } from "./algorithms.js";
import type { JwtJwksOptions } from "./options.js";
import { errorCode, SigningKeysUnavailable } from "./refusal.js";

// Errors about the token's header (its alg or kid) rather than about fetching the key set.
const tokenKeyErrors = new Set([
  "ERR_JWKS_NO_MATCHING_KEY",
  "ERR_JWKS_MULTIPLE_MATCHING_KEYS",
  "ERR_JOSE_NOT_SUPPORTED",
]);

export function jwksKey(options: JwtJwksOptions): PinnedKey {
  const url = jwksUrl(options.jwksUrl);
  const algorithms = pinAlgorithms(
    options.algorithms,
    asymmetricAlgorithms,
    asymmetricAlgorithms,
    "jwt.jwksUrl: a JWKS publishes public keys, and accepting HMAC beside them would let anyone " +
      "holding a public key forge tokens",
  );
  const remote = createRemoteJWKSet(url, remoteOptions(url, options));
  const key: JWTVerifyGetKey = async (header, token) => {
    try {
      return await remote(header, token);
    } catch (error) {
      if (tokenKeyErrors.has(errorCode(error))) throw error;
      throw new SigningKeysUnavailable("JWKS unavailable", { cause: error });
    }
  };
  return { key, algorithms };
}

// Whoever can alter the key set can mint tokens: https only, except on the machine itself.
function jwksUrl(value: string | URL): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch (cause) {
    throw new TypeError("jwt.jwksUrl is not a valid URL", { cause });
  }
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new TypeError("jwt.jwksUrl must use https: (http: is accepted only for localhost)");
  }
  return url;
}

/** Our option, jose's, and what jose accepts for it. */
const durations = [
  ["cacheMaxAgeMs", "cacheMaxAge", "a number of milliseconds >= 0"],
  ["cooldownMs", "cooldownDuration", "a number of milliseconds >= 0"],
  ["timeoutMs", "timeoutDuration", "a whole number of milliseconds >= 0"],
] as const;

function remoteOptions(url: URL, options: JwtJwksOptions): RemoteJWKSetOptions {
  const remote: RemoteJWKSetOptions = {};
  for (const [ours, theirs, accepted] of durations) {
    const value: unknown = options[ours];
    if (value === undefined) continue;
    try {
      // jose silently ignores a value that is not a number, and checks the others as the key set
      // is created (nothing is fetched then): one option at a time, so the message can name it.
      if (typeof value !== "number") throw new TypeError(`${ours} is not a number`);
      createRemoteJWKSet(url, { [theirs]: value });
    } catch (cause) {
      throw new TypeError(`jwt.${ours} must be ${accepted}`, { cause });
    }
    remote[theirs] = value;
  }
  return remote;
}
