export type {
  ReportsStoreFailures,
  StoreFailureReport,
} from "../logging/store-failure-reporter.js";
export type { AppendedEvent, EventListCursor, EventLog, EventQuery } from "./event-log.js";
export type {
  ExpiringKeysQuery,
  FeatureFieldChanges,
  FeatureFields,
  JsonValue,
  KeyListCursor,
  KeyMetadata,
  KeyRotation,
  KeyStore,
  KeyUpdate,
  ListByOwnerOptions,
  StoredKey,
} from "./key-store.js";
export type {
  AllowanceStore,
  CreditSeed,
  LayeredConsume,
  LayeredRead,
  RateLimitStore,
  UsageHit,
} from "./rate-limit-store.js";
export type { KeyUsage, LastUse, UsageIncrement, UsageStore } from "./usage-store.js";
export type {
  ClaimedWebhookDelivery,
  StoredWebhookDelivery,
  WebhookAttemptOutcome,
  WebhookDeliveryQuery,
  WebhookDeliveryStatus,
  WebhookOutbox,
  WebhookRoute,
} from "./webhook-outbox.js";

import type { ReportsStoreFailures } from "../logging/store-failure-reporter.js";
import type { ReportsStoreCalls } from "../observation/store-observer.js";
import type { EventLog } from "./event-log.js";
import type { KeyStore } from "./key-store.js";
import type { AllowanceStore, RateLimitStore } from "./rate-limit-store.js";
import type { UsageStore } from "./usage-store.js";
import type { WebhookOutbox } from "./webhook-outbox.js";

/**
 * What every store factory returns (`memoryStore`, `postgresStore`, `redisStore`): the parts it
 * provides, and one `close` for everything it holds. Hand one to `createKeyward` when it provides
 * all three parts, or several to `combineStores`.
 */
export interface StoreParts extends ReportsStoreFailures, ReportsStoreCalls {
  keys?: KeyStore;
  usage?: UsageStore;
  rateLimits?: RateLimitStore;
  /**
   * Quotas and credits exact across instances when `rateLimits` is per instance (PostgreSQL's):
   * see `AllowanceStore`. A shared `rateLimits` (Redis) keeps them itself.
   */
  allowances?: AllowanceStore;
  /**
   * The events `keys` writes with its changes, to read back and prune: from the same store as
   * `keys`, which writes them. Its presence says the key store's write methods honour their
   * `events` argument; `events()` needs it.
   */
  events?: EventLog;
  /**
   * The webhook outbox (see `WebhookOutbox`), from the same store as `keys`: every event stored
   * (with a key change, or appended) is marked for dispatch in the same atomic step.
   * `webhooks()` needs it.
   */
  outbox?: WebhookOutbox;
  /** Releases connections, timers and subscriptions the store owns; never the client you gave it. */
  close(): Promise<void>;
}

/**
 * The three stores one Keyward instance needs: `memoryStore()`, `combineStores(...)`, or parts of
 * your own. Named for Keyward so that it never shadows the DOM's global `Storage`.
 */
export interface KeywardStore extends ReportsStoreFailures, ReportsStoreCalls {
  keys: KeyStore;
  usage: UsageStore;
  rateLimits: RateLimitStore;
  /** Quotas and credits across instances beside per-instance rate limits; see `StoreParts`. */
  allowances?: AllowanceStore;
  /** The events `keys` writes with its changes; see `StoreParts`. */
  events?: EventLog;
  /** The webhook outbox of those events; see `StoreParts`. */
  outbox?: WebhookOutbox;
  /** Releases connections, timers and subscriptions the store owns. */
  close?(): Promise<void>;
}
