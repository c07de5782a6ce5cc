import type { Principal, RateLimitDecision } from "@keyward/core";

// Core's own types, re-exported so a host imports them from the adapter it uses.
export type { Principal, VerifyResult } from "@keyward/core";

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
