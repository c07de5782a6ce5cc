import { describe, expect, it } from "vitest";
import { memoryKeyStore } from "../memory/memory-key-store.js";
import { memoryRateLimitStore } from "../memory/memory-rate-limit-store.js";
import { memoryStore } from "../memory/memory-store.js";
import { memoryUsageStore } from "../memory/memory-usage-store.js";
import { webhookOutboxOf } from "../memory/memory-webhook-outbox.js";
import { combineStores } from "./combine-stores.js";
import type { RateLimitStore, UsageStore } from "./index.js";

/** A rate-limit store that, like Redis's, counts usage inside `consume` into `usage`. */
function recordingRateLimits(usage?: UsageStore): RateLimitStore {
  const limiter = memoryRateLimitStore();
  return {
    recordsUsage: true,
    ...(usage ? { usageStore: usage } : {}),
    consume: (bucket, policy, now) => limiter.consume(bucket, policy, now),
  };
}

describe("combineStores", () => {
  it("takes each part from the first store that has it", () => {
    const keysAndUsage = {
      keys: memoryKeyStore(),
      usage: memoryUsageStore(),
      close: async () => {},
    };
    const everything = memoryStore();
    const combined = combineStores(keysAndUsage, everything);
    expect(combined.keys).toBe(keysAndUsage.keys);
    expect(combined.usage).toBe(keysAndUsage.usage);
    expect(combined.rateLimits).toBe(everything.rateLimits);
  });

  it("takes events and the outbox from the store that provides keys, never from another", () => {
    const first = memoryStore();
    const second = memoryStore();
    const combined = combineStores(first, second);
    expect(combined.events).toBe(first.events);
    expect(webhookOutboxOf(combined)).toBe(webhookOutboxOf(first));
    expect(webhookOutboxOf(combined)).not.toBe(webhookOutboxOf(second));
    // Keys picked by hand without their events: no events part, rather than another store's log
    // that these keys never write.
    const handPicked = combineStores({ keys: memoryKeyStore() }, second);
    expect(handPicked.events).toBeUndefined();
    expect(handPicked.outbox).toBeUndefined();
    expect(webhookOutboxOf(handPicked)).toBeUndefined();
  });

  it("takes parts picked by hand, without a close of their own", () => {
    const picked = { keys: memoryKeyStore() };
    const combined = combineStores(picked, memoryStore());
    expect(combined.keys).toBe(picked.keys);
  });

  it("names every missing part", () => {
    expect(() => combineStores({ keys: memoryKeyStore() })).toThrow(
      /no store provides usage, rateLimits/,
    );
    expect(() => combineStores()).toThrow(/keys, usage, rateLimits/);
    expect(() => combineStores(null as never)).toThrow(/argument 1 is not a store/);
  });

  it("closes every store, once, even when one fails, and reports the failure", async () => {
    const closed: string[] = [];
    const failure = new Error("first close failed");
    const combined = combineStores(
      {
        keys: memoryKeyStore(),
        close: async () => {
          closed.push("a");
          throw failure;
        },
      },
      { ...memoryStore(), close: async () => void closed.push("b") },
    );
    await expect(combined.close()).rejects.toBe(failure);
    await expect(combined.close()).rejects.toBe(failure);
    expect(closed).toEqual(["a", "b"]);
  });

  describe("a rate-limit store that counts usage inside its own call", () => {
    it("goes with the usage store it names", () => {
      const usage = memoryUsageStore();
      const store = { rateLimits: recordingRateLimits(usage), usage, close: async () => {} };
      expect(combineStores(store, memoryStore()).usage).toBe(usage);
    });

    it("refuses any other usage store, and says how to fix it", () => {
      const usage = memoryUsageStore();
      const store = { rateLimits: recordingRateLimits(usage), usage, close: async () => {} };
      // Keys and usage, as postgresStore() provides them.
      const elsewhere = {
        keys: memoryKeyStore(),
        usage: memoryUsageStore(),
        close: async () => {},
      };
      expect(() => combineStores(elsewhere, store)).toThrow(TypeError);
      expect(() => combineStores(elsewhere, store)).toThrow(
        /counts usage inside its own call.*Pass that store before.*recordsUsage: false/s,
      );
      expect(() => combineStores({ usage: memoryUsageStore() }, store)).toThrow(TypeError);
      // Picked into one argument by hand does not hide the mismatch either.
      expect(() =>
        combineStores({ ...store, usage: memoryUsageStore() }, { keys: memoryKeyStore() }),
      ).toThrow(/counts usage inside its own call/);
    });

    it("naming no usage store, must come with the usage of the same argument", () => {
      const store = { rateLimits: recordingRateLimits(), usage: memoryUsageStore() };
      expect(() => combineStores(store, memoryStore())).not.toThrow();
      expect(() => combineStores({ usage: memoryUsageStore() }, store, memoryStore())).toThrow(
        /argument 2\).* argument 1,/,
      );
    });

    it("is not checked when the store leaves usage to Keyward", () => {
      const store = { rateLimits: memoryRateLimitStore(), close: async () => {} };
      expect(() => combineStores(store, memoryStore())).not.toThrow();
    });
  });
});
