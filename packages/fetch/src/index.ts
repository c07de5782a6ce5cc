/**
 * @keyward/fetch — Keyward on the Fetch API: Deno, Bun, Cloudflare Workers, and Node through a
 * Fetch server (srvx, @hono/node-server). `keywardFetchHandler` serves the six key-management
 * endpoints and nothing else; `withApiKey` guards the host's own routes.
 */

export { settlingStream } from "@keyward/core/budgets";
export { type KeywardFetchHandler, keywardFetchHandler } from "./keyward-fetch-handler.js";
export type { Principal, VerifyResult } from "./types.js";
export {
  type ApiKeyHandler,
  type WithApiKeyOptions,
  withApiKey,
  withHeaders,
} from "./with-api-key.js";
export { type HoldHandler, type WithHoldOptions, withHold } from "./with-hold.js";
