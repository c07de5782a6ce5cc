/**
 * @keyward/fetch — Keyward on the Fetch API: Deno, Bun, Cloudflare Workers, and Node through a
 * Fetch server (srvx, @hono/node-server). `keywardFetchHandler` serves the six key-management
 * endpoints and nothing else; `withApiKey` guards the host's own routes.
 */

export { settlingStream } from "@keyward/core/budgets";
/** The helper the guard adds its headers with; `@keyward/core/toolkit` has it for other adapters. */
export { withHeaders } from "@keyward/core/toolkit";
export { type KeywardFetchHandler, keywardFetchHandler } from "./keyward-fetch-handler.js";
export type { Principal, VerifyResult } from "./types.js";
export {
  type ApiKeyHandler,
  type WithApiKeyOptions,
  withApiKey,
} from "./with-api-key.js";
export { type HoldHandler, type WithHoldOptions, withHold } from "./with-hold.js";
