/**
 * @keyward/fastify — Keyward on Fastify 5: `keywardPlugin` registers the six key-management
 * endpoints and decorates the instance with `keyward` and the `requireApiKey` preHandler, which puts
 * the caller on `request.keyward`.
 */

export { type KeywardPluginOptions, keywardPlugin } from "./keyward-plugin.js";
export type {
  KeywardRequestState,
  Principal,
  RequireApiKeyOptions,
  VerifyResult,
} from "./types.js";
