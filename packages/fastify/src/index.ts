/**
 * @keyward/fastify — Keyward on Fastify 5: `keywardPlugin` registers the six key-management
 * endpoints and decorates the instance with `keyward` and the `requireApiKey` preHandler, which puts
 * the caller on `request.keyward`. `keywardErrors` and `keywardServerOptions` make the host's own
 * routes answer Fastify's errors in the contract's `{"detail": ...}` shape too.
 */

export {
  keywardErrorHandler,
  keywardErrors,
  keywardServerOptions,
} from "./keyward-errors.js";
export { type KeywardPluginOptions, keywardPlugin } from "./keyward-plugin.js";
export { requireApiKey } from "./require-api-key.js";
export { type KeywardHoldState, type RequireHoldOptions, requireHold } from "./require-hold.js";
export type {
  KeywardRequestState,
  Principal,
  RequireApiKeyOptions,
  VerifyResult,
} from "./types.js";
