/**
 * Events: what happened to a key, who did it and when. One is written with every state change, in
 * the same atomic write as the change (see `KeyStore`), and read back as the audit log
 * (`keyward.events.list`, `GET {basePath}/{key_id}/events`). An event never holds a secret or a
 * hash: only ids, names, hints and the values a change set.
 */

import type { Owner } from "../keys/owner.js";
import type { CalendarPeriod, CreditsConfig, KeyLimits } from "../limits/types.js";
import type { KeyMetadata } from "../storage/key-metadata.js";

/**
 * Who made a change.
 * - `user`: a signed-in user through the HTTP endpoints (a session token or the host's session);
 *   on an organization's key, the member who acted, while `owner` names the organization.
 * - `operator`: the host's own code through the programmatic API (`keyward.keys.*`), which names no
 *   user. Later event types may add actor types (the system, a secret scanner): treat an unknown
 *   `type` as "someone else".
 */
export type EventActor =
  | { type: "user"; id: string }
  | { type: "operator" }
  /** Keyward itself: time- and usage-based events (`key.expiring`, `quota.threshold`, `credits.exhausted`). */
  | { type: "system" }
  /** A secret scanner's signed report (`secretScanning`): `id` names the scanner, `"github"`. */
  | { type: "secret_scanner"; id: string };

/**
 * A key's per-key limits as an event shows them: `KeyLimits` with credits as granted (`remaining`
 * and `refill`), without the store's bookkeeping of when.
 */
export type EventKeyLimits = Omit<KeyLimits, "credits"> & { credits?: CreditsConfig };

/** What each event type carries in `data`. Times are ISO 8601 UTC strings. */
export interface EventDataByType {
  /** The key as created: every field the creation set (never the secret, never its hash). */
  "key.created": {
    name: string;
    scopes: string[];
    tier: string;
    expiresAt: string | null;
    hint: string;
    createdBy: string;
    /** Present when the key was created with metadata. */
    metadata?: KeyMetadata;
    /** Present when `environments` are configured: the environment the key was made in. */
    environment?: string;
    /**
     * The listed features' key fields written in events (`KeyField.schema.event`), when the key
     * has them.
     */
    [featureField: string]: unknown;
  };
  /**
   * The key was imported from another system (`imports()`): every field the import set, and when
   * that system created it (`createdAt`); the event's own time is the import's.
   */
  "key.imported": {
    name: string;
    scopes: string[];
    tier: string;
    expiresAt: string | null;
    hint: string;
    createdBy: string;
    createdAt: string;
    metadata?: KeyMetadata;
    environment?: string;
  };
  /** The secret was replaced: the hints of the secret it replaced and of the new one. */
  /**
   * `previousSecretExpiresAt`: until when the replaced secret keeps working (a graceful rotation),
   * present only then.
   */
  "key.rotated": { previousHint: string; hint: string; previousSecretExpiresAt?: string };
  /** The fields the change set that differ from what they were, with their new values. */
  "key.updated": {
    changes: {
      name?: string;
      scopes?: string[];
      metadata?: KeyMetadata | null;
      /** The key's per-key limits after an operator's `keys.update({ limits })`, or null when cleared. */
      limits?: EventKeyLimits | null;
      /** The listed features' key fields written in events: the new value, or null when removed. */
      [featureField: string]: unknown;
    };
  };
  "key.disabled": Record<string, never>;
  "key.enabled": Record<string, never>;
  "key.revoked": Record<string, never>;
  /** The key expires within the lead time (`events.expiring.leadTimeMs`) and is not revoked. */
  "key.expiring": { expiresAt: string };
  /**
   * The key has gone unused long enough that `permissions({ disableAfterUnused })` disables it at
   * `disablesAt` unless it is used before; written once per key and last use, ahead of the
   * `key.disabled` (actor `system`) that follows.
   */
  "key.inactive": { lastUsedAt: string | null; disablesAt: string };
  /**
   * The owner's quota for the period reached `threshold` percent (80, then 100), by a request of
   * `keyId`. `used` counts that request; `resetsAt` is when the period ends.
   */
  "quota.threshold": {
    threshold: 80 | 100;
    limit: number;
    used: number;
    period: CalendarPeriod;
    resetsAt: string;
  };
  /** The key's credits reached 0. `refillsAt`: when a refill sets them back, null without one. */
  "credits.exhausted": { refillsAt: string | null };
  /**
   * A secret scanner found the key's secret in public (`secretScanning`, docs/leaked-keys.md).
   * `action`: `revoked` (this report revoked it), `reported` (report-only mode: the key still
   * works), `already_revoked` (it was revoked before). `hint` names the secret that leaked (the
   * current one, or the one a graceful rotation replaced); `url` and `source` say where it was
   * found, as the scanner reported them (null when it did not).
   */
  "key.leaked": {
    action: "revoked" | "reported" | "already_revoked";
    hint: string;
    tokenType: string;
    url: string | null;
    source: string | null;
  };
  /**
   * A user was shown the key's secret again (`recoverable()`, `POST /{key_id}/reveal`). `hint`
   * names the secret shown; never the secret itself.
   */
  "key.revealed": { hint: string };
}

/** Every event type written today. More may come: a consumer should ignore types it does not know. */
export type EventType = keyof EventDataByType;

export const eventTypes: readonly EventType[] = [
  "key.created",
  "key.rotated",
  "key.updated",
  "key.disabled",
  "key.enabled",
  "key.revoked",
  "key.expiring",
  "key.inactive",
  "quota.threshold",
  "credits.exhausted",
  "key.leaked",
  "key.revealed",
  "key.imported",
];

export function isEventType(value: unknown): value is EventType {
  return typeof value === "string" && (eventTypes as readonly string[]).includes(value);
}

interface EventFields<T extends EventType> {
  /** `evt_` and 24 base62 characters: stable, unique, the id a webhook delivery will carry. */
  id: string;
  type: T;
  /** Whose key it concerns: a user or an organization. */
  owner: Owner;
  /** The key it concerns. */
  keyId: string;
  actor: EventActor;
  data: EventDataByType[T];
}

/** An event as the API shows it (the audit log, the `onEvent` hook): `occurredAt` in ISO 8601 UTC. */
export type KeywardEvent = {
  [T in EventType]: EventFields<T> & { occurredAt: string };
}[EventType];

/**
 * An event as stores keep it: `occurredAt` in milliseconds since the Unix epoch, the unit of every
 * stored time. Stores keep `actor` and `data` as given (JSON values).
 */
export type StoredEvent = {
  [T in EventType]: EventFields<T> & { occurredAt: number };
}[EventType];

export function toKeywardEvent(event: StoredEvent): KeywardEvent {
  return { ...event, occurredAt: new Date(event.occurredAt).toISOString() } as KeywardEvent;
}
