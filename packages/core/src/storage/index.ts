export type { KeyRotation, KeyStore, StoredKey } from "./key-store.js";
export type { RateLimitStore, UsageHit } from "./rate-limit-store.js";
export type { KeyUsage, UsageIncrement, UsageStore } from "./usage-store.js";

import type { KeyStore } from "./key-store.js";
import type { RateLimitStore } from "./rate-limit-store.js";
import type { UsageStore } from "./usage-store.js";

/** The three stores Keyward needs; one package may provide all of them, or each may differ. */
export interface Storage {
  keys: KeyStore;
  usage: UsageStore;
  rateLimits: RateLimitStore;
  /** Releases connections, timers and subscriptions the store owns. */
  close?(): Promise<void>;
}
