import { describe, expect, it } from "vitest";
import { memoryUsageStore } from "../memory/memory-usage-store.js";
import type { UsageIncrement, UsageStore } from "../storage/usage-store.js";
import { createUsageRecorder } from "./usage-recorder.js";

const at = Date.parse("2026-07-01T10:00:00.000Z");
const route = "GET /profiles/:slug";

/** A usage store that keeps every batch it is given, failing the first `failures` writes. */
function batches(failures = 0) {
  const written: UsageIncrement[][] = [];
  const inner = memoryUsageStore();
  let left = failures;
  const store: UsageStore = {
    ...inner,
    async record(increments) {
      if (left > 0) {
        left -= 1;
        throw new Error("storage away");
      }
      written.push(increments.map((increment) => ({ ...increment })));
      await inner.record(increments);
    },
  };
  return { store, written, inner };
}

describe("createUsageRecorder: use fields", () => {
  it("writes no use fields for uses recorded without any", async () => {
    const { store, written } = batches();
    const recorder = createUsageRecorder(store);
    recorder.record("key_1", route, at);
    recorder.record("key_1", route, at + 1);
    await recorder.close();
    expect(written).toEqual([
      [
        {
          keyId: "key_1",
          method: "GET",
          route: "/profiles/:slug",
          day: "2026-07-01",
          count: 2,
          lastUsedAt: at + 1,
        },
      ],
    ]);
  });

  it("keeps the latest use's fields, and their time when a later use had none", async () => {
    const { store, written } = batches();
    const recorder = createUsageRecorder(store);
    recorder.recordWithFields("key_1", route, at + 2, "192.0.2.2");
    recorder.recordWithFields("key_1", route, at + 1, "192.0.2.1");
    recorder.record("key_1", route, at + 3);
    await recorder.close();
    expect(written).toEqual([
      [
        {
          keyId: "key_1",
          method: "GET",
          route: "/profiles/:slug",
          day: "2026-07-01",
          count: 3,
          lastUsedAt: at + 3,
          useFields: "192.0.2.2",
          useFieldsAt: at + 2,
        },
      ],
    ]);
  });

  it("keeps use fields per key, and across rows of one key the store keeps the latest", async () => {
    const { store, inner } = batches();
    const recorder = createUsageRecorder(store);
    recorder.recordWithFields("key_1", "GET /a", at + 1, "192.0.2.1");
    recorder.recordWithFields("key_1", "PUT /b", at + 2, "192.0.2.2");
    recorder.recordWithFields("key_2", "GET /a", at + 3, "192.0.2.3");
    await recorder.close();
    expect((await inner.read("key_1")).useFields).toBe("192.0.2.2");
    expect((await inner.read("key_2")).useFields).toBe("192.0.2.3");
  });

  it("puts use fields back with the counts after a failed write, merged with uses since", async () => {
    const { store, written, inner } = batches(1);
    const errors: unknown[] = [];
    const recorder = createUsageRecorder(store, { onError: (error) => errors.push(error) });
    recorder.recordWithFields("key_1", route, at + 5, "192.0.2.5");
    await recorder.flush();
    expect(errors).toHaveLength(1);
    expect(written).toEqual([]);
    recorder.recordWithFields("key_1", route, at + 4, "192.0.2.4");
    recorder.record("key_1", route, at + 6);
    await recorder.close();
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject([
      { count: 3, lastUsedAt: at + 6, useFields: "192.0.2.5", useFieldsAt: at + 5 },
    ]);
    expect((await inner.read("key_1")).useFields).toBe("192.0.2.5");
  });
});
