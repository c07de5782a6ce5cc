import type { KeywardStore } from "@keyward/core";
import { describe } from "vitest";
import { keyStoreSuite } from "./key-store-suite.js";
import type { StorageSuiteOptions } from "./options.js";
import { rateLimitStoreSuite } from "./rate-limit-store-suite.js";
import { secretsSuite } from "./secrets-suite.js";
import { usageStoreSuite } from "./usage-store-suite.js";

export type { StorageProbe, StorageSuiteOptions } from "./options.js";

/**
 * Registers the storage conformance suite with vitest. Every store Keyward ships runs it, and so
 * should yours: it checks atomicity (rotation compare-and-set, revocation, rate-limit steps), the
 * ordering and shapes of reads, and, given a probe, that no secret is ever persisted.
 *
 * @example
 * // my-store.test.ts
 * import { describeStorageConformance } from "@keyward/testing";
 * describeStorageConformance("my store", { createStore: () => myStore({ client }) });
 */
export function describeStorageConformance<S extends KeywardStore>(
  name: string,
  options: StorageSuiteOptions<S>,
): void {
  describe(`storage conformance: ${name}`, () => {
    if (!options.skipKeys) keyStoreSuite(options);
    usageStoreSuite(options);
    if (!options.skipRateLimits) rateLimitStoreSuite(options);
    if (!options.skipKeys) secretsSuite(options);
  });
}
