import type { KeywardStore } from "@keyward/core";
import { afterEach } from "vitest";
import type { StorageSuiteOptions } from "./options.js";

/**
 * Registers cleanup for the enclosing `describe` and returns an `open()` that builds a store for
 * one test; every store opened in a test is closed after it.
 */
export function openStores<S extends KeywardStore>(
  options: StorageSuiteOptions<S>,
): () => Promise<S> {
  const opened: S[] = [];
  afterEach(async () => {
    for (const store of opened.splice(0)) await (options.closeStore?.(store) ?? store.close?.());
  });
  return async () => {
    const store = await options.createStore();
    opened.push(store);
    return store;
  };
}
