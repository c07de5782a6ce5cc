/**
 * @keyward/hono — Keyward as Hono middleware: `app.use(keyward(instance))` serves the six
 * key-management endpoints, `requireScopes(...)` and `requireApiKey(...)` guard the host's routes
 * and put the caller on `c.get("keyward")`. Runs wherever Hono does: Node, Bun, Deno, Workers.
 */

export { settlingStream } from "@keyward/core/budgets";
export type { ClientAddressOptions, ClientAddressResolver } from "./client-address.js";
export { type KeywardMiddlewareOptions, keyward } from "./keyward-middleware.js";
export { type RequireApiKeyOptions, requireApiKey, requireScopes } from "./require-api-key.js";
export { type KeywardHoldEnv, type RequireHoldOptions, requireHold } from "./require-hold.js";
export type {
  KeywardContext,
  KeywardEnv,
  KeywardVariables,
  Principal,
  RateLimitDecision,
  VerifyResult,
} from "./types.js";
