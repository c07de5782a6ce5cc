/** The `jwt` options of `createKeyward` and `createJwtVerifier`, and what a verifier returns. */
import type { CryptoKey as JoseCryptoKey, JWK, JWTPayload } from "jose";
import type { JwtAlgorithm } from "./algorithms.js";

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
   * expires (JWT makes `exp` optional).
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
