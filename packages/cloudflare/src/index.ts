export { KeywardObject } from "./object/keyward-object.js";
export type { ObjectNamespace, ObjectResponse, ObjectStub } from "./protocol/object-call.js";
export { ObjectCallError } from "./protocol/object-call.js";
export {
  type CloudflareStore,
  type CloudflareStoreOptions,
  cloudflareStore,
} from "./store/cloudflare-store.js";
