/**
 * @keyward/express — Keyward on Express 4 and 5: `keywardRouter` serves the six key-management
 * endpoints, `requireApiKey` guards the host's own routes and puts the caller on `req.keyward`.
 * `keywardNotFound`, `keywardErrorHandler` and `answerClientError` make the host's own routes
 * answer Express's and Node's errors in the contract's `{"detail": ...}` shape too.
 */

export { answerClientError } from "@keyward/core/node-http";
export {
  type KeywardErrorHandlerOptions,
  keywardErrorHandler,
  keywardNotFound,
} from "./keyward-errors.js";
export { keywardRouter } from "./keyward-router.js";
export { keepRawBody } from "./raw-body.js";
export { type RequireApiKeyOptions, requireApiKey } from "./require-api-key.js";
export { type KeywardHoldState, type RequireHoldOptions, requireHold } from "./require-hold.js";
export type { KeywardRequestState, Principal, VerifyResult } from "./types.js";
