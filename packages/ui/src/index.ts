/**
 * @keyward/ui — `<keyward-keys>`, a framework-free web component (Lit) where a signed-in person
 * lists, creates, rotates, disables and revokes their own and their organizations' API keys and
 * sees their usage, limits and audit log, against the host's Keyward endpoints. Importing this
 * module registers the element.
 */
import "./define.js";

export { tagName } from "./define.js";
export type { KeywardEventMap, KeywardEventName } from "./events.js";
export {
  type CreateKeyInput,
  type KeyChanges,
  KeysApiError,
  type ValidationIssue,
} from "./keys-client.js";
export {
  defaultBasePath,
  defaultPageSize,
  defaultTiers,
  KeywardKeys,
  type KeywardTheme,
} from "./keyward-keys.js";
export {
  defaultMessages,
  type ErrorMessageKey,
  type KeywardMessages,
  type KeywardMessagesOverride,
} from "./messages.js";
export type {
  KeyEvent,
  KeyEventPage,
  KeyOwner,
  KeyPage,
  KeyRecord,
  KeyStatus,
  KeyWithSecret,
  OrganizationMembership,
  Revocation,
  ScopeDescription,
  UsageReport,
} from "./types.js";
