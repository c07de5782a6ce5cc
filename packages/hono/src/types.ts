import type { Principal, RateLimitDecision } from "@keyward/core";

/** What an admitted request carries on `c.get("keyward")`: who sent it, and what is left of its allowance. */
export interface KeywardContext {
  /** `{ kind: "key", userId, keyId, scopes, tier }` for an API key, `{ kind: "user", userId, tier, claims }` for a session. */
  principal: Principal;
  rateLimit: RateLimitDecision;
}

/** Hono `Variables` the guards set: merge them into your app's (`new Hono<KeywardEnv>()`). */
export interface KeywardVariables {
  keyward: KeywardContext;
}

/** A Hono `Env` with Keyward's variables, for `new Hono<KeywardEnv>()` and `createMiddleware<KeywardEnv>`. */
export interface KeywardEnv {
  Variables: KeywardVariables;
}

// Core's own types, re-exported so a host imports them from the adapter it uses.
export type { Principal, RateLimitDecision, VerifyResult } from "@keyward/core";
