/**
 * Verifying the user's session JWT (jose, Web Crypto only). The accepted algorithms are always
 * pinned — from the options or from the kind of key — so a token can never choose how it is checked:
 * no `alg: none`, and no HMAC token "signed" with a public key (algorithm confusion).
 */
import {
  base64url,
  createRemoteJWKSet,
  type CryptoKey as JoseCryptoKey,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
  type KeyInput,
} from "jose";
import { type Clock, systemClock } from "../clock.js";
import { KeywardError } from "../errors/keyward-error.js";
import { ownerIdProblem } from "../validation/owner-id.js";
import { errorCode, refusedToken, SigningKeysUnavailable } from "./jwt-refusal.js";

const hmacAlgorithms = ["HS256", "HS384", "HS512"] as const;
const asymmetricAlgorithms = [
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

export interface JwtCommonOptions {
  /** Accepted `iss` value(s). When set, a token without a matching `iss` is refused. */
  issuer?: string | string[];
  /** Accepted `aud` value(s). When set, a token without a matching `aud` is refused. */
  audience?: string | string[];
  /**
   * The algorithms accepted, pinned. Defaults: `["HS256"]` for a secret; every asymmetric algorithm
   * for a JWKS; the key's own algorithms for `key`. `"none"` is never accepted, and HMAC cannot be
   * combined with a JWKS or an asymmetric key.
   */
  algorithms?: JwtAlgorithm[];
  /**
   * Leeway for `exp` and `nbf` when the issuer's clock and ours disagree: seconds (a number, like
   * the JWT time claims) or a duration such as `"30s"`, `"2m"`, `"1 minute"`. Default 0.
   */
  clockTolerance?: number | string;
  /**
   * Refuse a token without an `exp` claim. Default `false`: such a token is accepted and never
   * expires (JWT makes `exp` optional), as in v0.1.
   */
  requireExp?: boolean;
  /**
   * The oldest token accepted, counted from its `iat` claim: seconds or a duration such as
   * `"15m"`, `"12h"`, `"7d"`. When set, a token without `iat` is refused too. It caps a session
   * token's lifetime whatever `exp` it carries. Default: no cap.
   */
  maxTokenAge?: number | string;
}

/** A shared HMAC secret, at least as long as the hash (32 bytes for HS256; RFC 7518 §3.2). */
export interface JwtSecretOptions extends JwtCommonOptions {
  secret: string | Uint8Array;
  jwksUrl?: never;
  key?: never;
}

/** Public keys fetched from a JWKS endpoint, cached, and refetched when an unknown `kid` appears. */
export interface JwtJwksOptions extends JwtCommonOptions {
  /** `https:`; plain `http:` is accepted only for loopback hosts (local development, tests). */
  jwksUrl: string | URL;
  /** How long a fetched key set is used before it is fetched again. Default 10 minutes. */
  cacheMaxAgeMs?: number;
  /** Minimum time between refetches triggered by an unknown `kid`. Default 30 seconds. */
  cooldownMs?: number;
  /** Timeout of one JWKS request. Default 5 seconds. */
  timeoutMs?: number;
  secret?: never;
  key?: never;
}

/**
 * One verification key: a public `CryptoKey` or JWK, an HMAC `CryptoKey`/JWK, or raw HMAC bytes.
 * Typed with jose's names, which resolve without the DOM library: the published `.d.ts` must
 * compile in a Node project whose `lib` has no `CryptoKey` or `JsonWebKey`.
 */
export interface JwtKeyOptions extends JwtCommonOptions {
  key: JoseCryptoKey | JWK | Uint8Array;
  secret?: never;
  jwksUrl?: never;
}

export type JwtOptions = JwtSecretOptions | JwtJwksOptions | JwtKeyOptions;

/** A verified claims set; `sub` is the user id. */
export type JwtClaims = JWTPayload & { sub: string };

export type JwtVerifier = (token: string) => Promise<JwtClaims>;

/**
 * Builds a verifier for session JWTs. Options are checked here, so a misconfiguration throws a
 * `TypeError` at start-up instead of refusing every request later. The verifier throws
 * `KeywardError("invalid_token")` (401) for every token it does not accept; its `detail` never
 * contains the token.
 *
 * @example
 * const verifyJwt = createJwtVerifier({
 *   jwksUrl: "https://auth.example.com/.well-known/jwks.json",
 *   issuer: "https://auth.example.com/",
 *   audience: "my-api",
 * });
 * const claims = await verifyJwt(token); // claims.sub is the user id
 */
export function createJwtVerifier(options: JwtOptions, clock: Clock = systemClock): JwtVerifier {
  const { key, algorithms } = resolveKey(options);
  const base = {
    algorithms,
    issuer: claimValues(options.issuer, "issuer"),
    audience: claimValues(options.audience, "audience"),
    clockTolerance: durationSeconds(options.clockTolerance, "clockTolerance") ?? 0,
    ...requiredClaims(options.requireExp),
    ...maxTokenAge(options.maxTokenAge),
  };
  return async (token) => {
    let payload: JWTPayload;
    try {
      if (typeof token !== "string") throw new TypeError("token must be a string");
      ({ payload } = await jwtVerify(token, key, { ...base, currentDate: new Date(clock.now()) }));
    } catch (cause) {
      throw refusedToken(cause);
    }
    // The subject becomes an owner id that stores index and look up: refused here, before any
    // store sees it, when no store could keep it as it is.
    const problem = ownerIdProblem(payload.sub);
    if (problem) {
      throw new KeywardError(
        "invalid_token",
        problem === "is missing" ? "Token has no subject" : `Token subject ${problem}`,
      );
    }
    return payload as JwtClaims;
  };
}

type Resolved = { key: KeyInput | JWTVerifyGetKey; algorithms: JwtAlgorithm[] };

function resolveKey(options: JwtOptions): Resolved {
  if (typeof options !== "object" || options === null)
    throw new TypeError("jwt options are required");
  const given = (["secret", "jwksUrl", "key"] as const).filter((name) => options[name] != null);
  if (given.length !== 1) {
    const hint =
      given.length > 1
        ? `; got ${given.join(" and ")}`
        : "secret" in options
          ? " (jwt.secret is undefined: is its environment variable set?)"
          : "";
    throw new TypeError(`jwt options need exactly one of secret, jwksUrl or key${hint}`);
  }
  if (options.secret != null) {
    const bytes =
      typeof options.secret === "string"
        ? new TextEncoder().encode(options.secret)
        : options.secret;
    if (!(bytes instanceof Uint8Array))
      throw new TypeError("jwt.secret must be a string or a Uint8Array");
    return hmacKey(bytes, options.algorithms, "jwt.secret");
  }
  if (options.jwksUrl != null) return jwksKey(options);
  const key = options.key;
  if (key instanceof Uint8Array) return hmacKey(key, options.algorithms, "jwt.key");
  if (isCryptoKey(key)) return cryptoKey(key, options.algorithms);
  if (typeof key === "object") return jsonWebKey(key, options.algorithms);
  throw new TypeError("jwt.key must be a CryptoKey, a JSON Web Key or a Uint8Array");
}

const minimumSecretBytes = { HS256: 32, HS384: 48, HS512: 64 } as const;

function hmacKey(
  secret: Uint8Array,
  configured: unknown,
  what: string,
  allowed: readonly JwtAlgorithm[] = hmacAlgorithms,
): Resolved {
  const defaults = allowed.length === 1 ? allowed : ["HS256" as const];
  const algorithms = pinAlgorithms(configured, allowed, defaults, `${what} (HMAC)`);
  const minimum = Math.max(...algorithms.map((alg) => minimumSecretBytes[alg as "HS256"]));
  if (secret.length < minimum) {
    throw new TypeError(
      `${what} must be at least ${minimum} bytes for ${algorithms.join("/")} (got ${secret.length}); ` +
        "use a long random value, e.g. 32 random bytes in base64",
    );
  }
  // Import once per algorithm instead of on every request; the copy ignores later caller edits.
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

// Errors about the token's header (its alg or kid) rather than about fetching the key set.
const tokenKeyErrors = new Set([
  "ERR_JWKS_NO_MATCHING_KEY",
  "ERR_JWKS_MULTIPLE_MATCHING_KEYS",
  "ERR_JOSE_NOT_SUPPORTED",
]);

function jwksKey(options: JwtJwksOptions): Resolved {
  let url: URL;
  try {
    url = new URL(options.jwksUrl);
  } catch (cause) {
    throw new TypeError("jwt.jwksUrl is not a valid URL", { cause });
  }
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new TypeError("jwt.jwksUrl must use https: (http: is accepted only for localhost)");
  }
  const algorithms = pinAlgorithms(
    options.algorithms,
    asymmetricAlgorithms,
    asymmetricAlgorithms,
    "jwt.jwksUrl: a JWKS publishes public keys, and accepting HMAC beside them would let anyone " +
      "holding a public key forge tokens",
  );
  const remote = createRemoteJWKSet(url, {
    cacheMaxAge: duration(options.cacheMaxAgeMs, "cacheMaxAgeMs", true),
    cooldownDuration: duration(options.cooldownMs, "cooldownMs"),
    timeoutDuration: duration(options.timeoutMs, "timeoutMs"),
  });
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

function cryptoKey(key: CryptoKey, configured: unknown): Resolved {
  if (key.type === "private")
    throw new TypeError("jwt.key must be a public key, not a private one");
  if (!key.usages.includes("verify")) throw new TypeError('jwt.key must allow the "verify" usage');
  const algorithm = key.algorithm as { name: string; hash?: { name: string }; namedCurve?: string };
  const bits = algorithm.hash?.name.replace("SHA-", "");
  const own: Record<string, JwtAlgorithm[]> = {
    HMAC: [`HS${bits}` as JwtAlgorithm],
    "RSASSA-PKCS1-v1_5": [`RS${bits}` as JwtAlgorithm],
    "RSA-PSS": [`PS${bits}` as JwtAlgorithm],
    ECDSA: curveAlgorithms(algorithm.namedCurve),
    Ed25519: ["EdDSA", "Ed25519"],
  };
  const family = (own[algorithm.name] ?? []).filter(isKnownAlgorithm);
  if (family.length === 0)
    throw new TypeError(`jwt.key: unsupported key algorithm ${algorithm.name}`);
  const algorithms = pinAlgorithms(configured, family, family, `this jwt.key (${algorithm.name})`);
  requireRsaBits((key.algorithm as Partial<RsaHashedKeyAlgorithm>).modulusLength);
  if (algorithm.name === "HMAC") {
    const bytes = (key.algorithm as HmacKeyAlgorithm).length / 8;
    const minimum = minimumSecretBytes[algorithms[0] as "HS256"];
    if (bytes < minimum) throw new TypeError(`jwt.key must be at least ${minimum} bytes`);
  }
  return { key, algorithms };
}

function jsonWebKey(jwk: JWK, configured: unknown): Resolved {
  if (jwk.use !== undefined && jwk.use !== "sig")
    throw new TypeError('jwt.key: JWK "use" must be "sig"');
  if (Array.isArray(jwk.key_ops) && !jwk.key_ops.includes("verify")) {
    throw new TypeError('jwt.key: JWK "key_ops" must include "verify"');
  }
  const own = jwk.alg === undefined ? undefined : [jwk.alg as JwtAlgorithm];
  if (jwk.kty === "oct") {
    if (typeof jwk.k !== "string") throw new TypeError('jwt.key: an "oct" JWK needs "k"');
    if (own && !hmacAlgorithms.includes(own[0] as "HS256"))
      throw new TypeError("jwt.key: JWK alg mismatch");
    return hmacKey(base64url.decode(jwk.k), configured, "jwt.key", own);
  }
  const privateMembers = ["d", "p", "q", "dp", "dq", "qi", "priv"] as const;
  if (privateMembers.some((name) => name in jwk)) {
    throw new TypeError("jwt.key must be a public JWK; remove the private members");
  }
  const families: Record<string, JwtAlgorithm[]> = {
    RSA: ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"],
    EC: curveAlgorithms(jwk.crv),
    OKP: jwk.crv === "Ed25519" ? ["EdDSA", "Ed25519"] : [],
  };
  const family = families[jwk.kty ?? ""] ?? [];
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
  if (jwk.kty === "RSA") requireRsaBits(typeof jwk.n === "string" ? jwk.n.length * 6 : 0);
  // jose caches the imported key on this object and freezes it: give it our own copy.
  return { key: structuredClone(jwk) as JWK, algorithms };
}

// jose refuses RSA keys under 2048 bits at verification; refusing them here says so at start-up.
function requireRsaBits(bits: number | undefined): void {
  if (bits !== undefined && bits < 2048) {
    throw new TypeError("jwt.key: RSA keys must be at least 2048 bits");
  }
}

function curveAlgorithms(curve: string | undefined): JwtAlgorithm[] {
  const byCurve: Record<string, JwtAlgorithm> = {
    "P-256": "ES256",
    "P-384": "ES384",
    "P-521": "ES512",
  };
  const alg = curve === undefined ? undefined : byCurve[curve];
  return alg ? [alg] : [];
}

function isKnownAlgorithm(value: unknown): value is JwtAlgorithm {
  return (
    hmacAlgorithms.includes(value as "HS256") || asymmetricAlgorithms.includes(value as "RS256")
  );
}

function pinAlgorithms(
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
    if (!isKnownAlgorithm(alg))
      throw new TypeError(`jwt.algorithms: unsupported algorithm ${String(alg)}`);
    if (!allowed.includes(alg))
      throw new TypeError(`jwt.algorithms: ${alg} cannot be used with ${what}`);
  }
  return [...new Set(configured as JwtAlgorithm[])];
}

function claimValues(value: unknown, name: string): string | string[] | undefined {
  if (value === undefined) return undefined;
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || !list.every((item) => typeof item === "string" && item !== "")) {
    throw new TypeError(`jwt.${name} must be a non-empty string or a non-empty list of them`);
  }
  return value as string | string[];
}

const durationPattern =
  /^(\d+(?:\.\d+)?) ?(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)$/i;
const unitSeconds: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Seconds (a number, like the JWT time claims) or a duration text, checked at start-up. */
function durationSeconds(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
  const match = typeof value === "string" ? durationPattern.exec(value.trim()) : null;
  if (!match) {
    throw new TypeError(
      `jwt.${name} must be seconds (>= 0) or a duration such as "30s", "15m", "12h" or "7d"`,
    );
  }
  return Number(match[1]) * unitSeconds[match[2]![0]!.toLowerCase()]!;
}

function requiredClaims(requireExp: unknown): { requiredClaims?: string[] } {
  if (requireExp === undefined || requireExp === false) return {};
  if (requireExp !== true) throw new TypeError("jwt.requireExp must be true or false");
  return { requiredClaims: ["exp"] };
}

// jose checks the age against `iat` and requires `iat` once `maxTokenAge` is given.
function maxTokenAge(value: unknown): { maxTokenAge?: number } {
  const seconds = durationSeconds(value, "maxTokenAge");
  if (seconds === undefined) return {};
  if (seconds === 0) throw new TypeError("jwt.maxTokenAge must be more than 0 seconds");
  return { maxTokenAge: seconds };
}

function duration(value: unknown, name: string, allowInfinity = false): number | undefined {
  if (value === undefined) return undefined;
  const ok =
    typeof value === "number" &&
    value >= 0 &&
    (Number.isInteger(value) || (allowInfinity && value === Number.POSITIVE_INFINITY));
  if (!ok) throw new TypeError(`jwt.${name} must be a whole number of milliseconds >= 0`);
  return value;
}

function isCryptoKey(value: unknown): value is CryptoKey {
  return (
    (typeof CryptoKey !== "undefined" && value instanceof CryptoKey) ||
    (typeof value === "object" &&
      value !== null &&
      Object.prototype.toString.call(value) === "[object CryptoKey]")
  );
}
