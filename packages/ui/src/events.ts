/**
 * The events `<keyward-keys>` dispatches (bubbling, composed, so a listener on any ancestor hears
 * them). No detail ever holds a secret: a host's analytics or logging listener must not be able to
 * leak one. The secret goes to the person's eyes and clipboard only.
 */
import type { KeyRecord, Revocation } from "./types.js";

export interface KeywardEventMap {
  /** A key was created; `key` is its record, without the secret. */
  "keyward-key-created": CustomEvent<{ key: KeyRecord }>;
  /** A key was rotated; `key` is its record, without the new secret. */
  "keyward-key-rotated": CustomEvent<{ key: KeyRecord }>;
  /** A key was renamed, disabled, enabled or its allowlist changed; `key` is its new record. */
  "keyward-key-updated": CustomEvent<{ key: KeyRecord }>;
  /** A key was revoked. */
  "keyward-key-revoked": CustomEvent<Revocation>;
  /** The person copied a new secret (which key, not what). */
  "keyward-secret-copied": CustomEvent<{ id: string }>;
  /**
   * A call failed: `status` (0 when the server could not be reached), the `code` of docs/errors.md
   * when the answer had one, and what the component shows (a 422's issues as the API wrote them).
   */
  "keyward-error": CustomEvent<{ status: number; code: string | undefined; messages: string[] }>;
}

export type KeywardEventName = keyof KeywardEventMap;

/** The record as an event may carry it: a `key` field (the secret) is dropped, whatever called. */
export function withoutSecret(record: KeyRecord & { key?: unknown }): KeyRecord {
  const { key: _secret, ...rest } = record;
  return rest;
}
