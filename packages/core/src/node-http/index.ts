/**
 * @keyward/core/node-http — Node's `IncomingMessage` as a Fetch `Request`, for adapters to
 * Node frameworks (`@keyward/express`, `@keyward/fastify`, and yours), with the answers for what
 * that translation cannot carry: a method the Fetch API forbids, and a request Node's own parser
 * refused. A separate entry point so the main one never loads anything from `node:*`.
 */
export { answerClientError } from "./client-error.js";
export {
  bodyStream,
  fetchHeaders,
  headerValue,
  type NodeRequestInit,
  toFetchRequest,
  toHeadersOnlyRequest,
} from "./node-request.js";
export { uncarriedMethodResponse } from "./uncarried-method.js";
