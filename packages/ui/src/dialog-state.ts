/** What the component's one modal dialog is showing, if anything. */
import type { KeyRecord, KeyWithSecret } from "./types.js";

export type DialogState =
  | { kind: "create" }
  | { kind: "confirm-rotate"; key: KeyRecord }
  | { kind: "confirm-revoke"; key: KeyRecord }
  /** Rename, and the IP allowlist (`PATCH`). */
  | { kind: "edit"; key: KeyRecord }
  /** The one-time reveal of a secret, after create or rotate. Cleared when the dialog closes. */
  | { kind: "reveal"; key: KeyWithSecret; action: "created" | "rotated" };
