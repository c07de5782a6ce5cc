/**
 * @keyward/ui — `<keyward-keys>`, a framework-free web component (Lit) where a signed-in person
 * lists, creates, rotates and revokes their API keys and sees their usage, against the host's
 * Keyward endpoints. Importing this module registers the element.
 */
import "./define.js";

export { tagName } from "./define.js";
export type { KeywardEventMap, KeywardEventName } from "./events.js";
export { type CreateKeyInput, KeysApiError, type ValidationIssue } from "./keys-client.js";
export { defaultBasePath, defaultTiers, KeywardKeys, type KeywardTheme } from "./keyward-keys.js";
export {
  defaultMessages,
  type ErrorMessageKey,
  type KeywardMessages,
  type KeywardMessagesOverride,
} from "./messages.js";
export type {
  KeyRecord,
  KeyStatus,
  KeyWithSecret,
  Revocation,
  ScopeDescription,
  UsageReport,
} from "./types.js";
