import type { KeywardError } from "../errors/keyward-error.js";
import type { RateLimitDecision } from "../rate-limit/types.js";
import type { JwtClaims } from "./jwt.js";

/** Who a verified request acts for. `userId` is the key's owner or the JWT's `sub`. */
export type Principal =
  | {
      kind: "key";
      userId: string;
      keyId: string;
      name: string;
      scopes: readonly string[];
      tier: string;
    }
  | {
      kind: "user";
      userId: string;
      /** The account tier, from `accountTier(claims)`. */
      tier: string;
      claims: JwtClaims;
    };

export interface VerifyOptions {
  /** Scopes the route needs; an API key must hold all of them. A JWT holds every scope. */
  scopes?: readonly string[];
  /**
   * The route template usage is recorded under, `"PUT /profiles/:slug"` (or just the path when
   * the method is known, as in `authenticate`). Never the raw path: `/profiles/alice` would make
   * one usage row per profile.
   */
  route?: string;
}

export type VerifyResult =
  | {
      ok: true;
      principal: Principal;
      rateLimit: RateLimitDecision;
      /** `X-RateLimit-*` (and, when configured, IETF) headers to put on the response. */
      headers: Record<string, string>;
    }
  | {
      ok: false;
      error: KeywardError;
      /** Present when the request got as far as the rate limiter. */
      rateLimit?: RateLimitDecision;
      /**
       * Headers the refusal must carry: the `WWW-Authenticate` challenge on a 401, the rate-limit
       * headers (and `Retry-After`) on a 429. `error.toResponse(headers)` includes them.
       */
      headers: Record<string, string>;
    };
