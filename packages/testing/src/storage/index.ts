import type { KeywardStore } from "@keyward/core";
import { describe } from "vitest";
import { eventLogSuite } from "./event-log-suite.js";
import { featureFieldsSuite } from "./feature-fields-suite.js";
import { importKeysSuite } from "./import-keys-suite.js";
import { keyStoreSuite } from "./key-store-suite.js";
import { layeredLimitsSuite } from "./layered-limits-suite.js";
import type { StorageSuiteOptions } from "./options.js";
import { patchFuzzSuite } from "./patch-fuzz-suite.js";
import { rateLimitStoreSuite } from "./rate-limit-store-suite.js";
import { secretsSuite } from "./secrets-suite.js";
import { timedEventsSuite } from "./timed-events-suite.js";
import { usageStoreSuite } from "./usage-store-suite.js";
import { webhookOutboxSuite } from "./webhook-outbox-suite.js";

export type { StorageProbe, StorageSuiteOptions } from "./options.js";

/**
 * Registers the storage conformance suite with vitest. Every store Keyward ships runs it, and so
 * should yours: it checks atomicity (rotation and update compare-and-sets, revocation, rate-limit steps, layered limits all-or-nothing), that fuzzed PATCH bodies never meet a 5xx, the
 * ordering and shapes of reads, and, through the probe's raw reads, that what is persisted matches
 * what the getters report and that no secret is ever persisted.
 *
 * @example
 * // my-store.test.ts
 * import { describeStorageConformance } from "@keyward/testing";
 * describeStorageConformance("my store", {
 *   createStore: () => myStore({ client, prefix: uniquePrefix() }),
 *   probe: {
 *     dump: (store) => readEverything(client, store.prefix),
 *     rawKey: (store, id) => readKeyRow(client, store.prefix, id),
 *   },
 * });
 */
export function describeStorageConformance<S extends KeywardStore>(
  name: string,
  options: StorageSuiteOptions<S>,
): void {
  // Checked here too, for callers without the types: without raw reads the suite would pass a
  // store that persists secrets, which is the one thing it exists to catch.
  if (typeof options.probe?.dump !== "function" || typeof options.probe.rawKey !== "function") {
    throw new TypeError(
      `describeStorageConformance("${name}"): pass probe: { dump, rawKey }, direct reads of what the store persists`,
    );
  }
  describe(`storage conformance: ${name}`, () => {
    if (!options.skipKeys) keyStoreSuite(options);
    usageStoreSuite(options);
    if (!options.skipRateLimits) rateLimitStoreSuite(options);
    if (!options.skipLayers) layeredLimitsSuite(options);
    if (!options.skipKeys) secretsSuite(options);
    if (!options.skipKeys) patchFuzzSuite(options);
    if (!options.skipKeys) importKeysSuite(options);
    if (!options.skipKeys) featureFieldsSuite(options);
    if (!options.skipKeys && !options.skipEvents) eventLogSuite(options);
    if (!options.skipKeys && !options.skipEvents && !options.skipExpiringKeys) {
      timedEventsSuite(options);
    }
    if (!options.skipKeys && !options.skipEvents && !options.skipWebhooks) {
      webhookOutboxSuite(options);
    }
  });
}
