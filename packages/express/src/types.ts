import type { Keyward, RateLimitDecision } from "@keyward/core";

/** What `keyward.verify` decides for one request. */
export type VerifyResult = Awaited<ReturnType<Keyward["verify"]>>;

/**
 * Who an admitted request acts for: `{ kind: "key", userId, keyId, name, scopes, tier }` for an API
 * key, `{ kind: "user", userId, tier, claims }` for a user's JWT. `userId` is the key's owner.
 */
export type Principal = Extract<VerifyResult, { ok: true }>["principal"];

/** What `requireApiKey` leaves on `req.keyward` for the handlers after it. */
export interface KeywardRequestState {
  principal: Principal;
  /** Where the caller stands against its rate limit after this request. */
  rateLimit: RateLimitDecision;
}

declare global {
  namespace Express {
    interface Request {
      /** Set by `requireApiKey` on the requests it admits; absent on unguarded routes. */
      keyward?: KeywardRequestState;
    }
  }
}
