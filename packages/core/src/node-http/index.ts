/**
 * @keyward/core/node-http — Node's `IncomingMessage` as a Fetch `Request`, for adapters to
 * Node frameworks (`@keyward/express`, `@keyward/fastify`, and yours). A separate entry point so
 * the main one never loads anything from `node:*`.
 */
export {
  bodyStream,
  fetchHeaders,
  headerValue,
  type NodeRequestInit,
  toFetchRequest,
  toHeadersOnlyRequest,
} from "./node-request.js";
