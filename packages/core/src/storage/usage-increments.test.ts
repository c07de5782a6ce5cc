import { describe, expect, it } from "vitest";
import {
  mergeUsageIncrement,
  mergeUsageIncrements,
  usageIncrementRow,
} from "./usage-increments.js";
import type { UsageIncrement } from "./usage-store.js";

const hit = (overrides: Partial<UsageIncrement> = {}): UsageIncrement => ({
  keyId: "key_1",
  method: "GET",
  route: "/profiles/:slug",
  day: "2026-01-01",
  count: 1,
  lastUsedAt: 100,
  ...overrides,
});

describe("mergeUsageIncrements", () => {
  it("sums the counts of one row and keeps its latest use, whatever the order", () => {
    const increments = [hit({ count: 2, lastUsedAt: 300 }), hit({ count: 3, lastUsedAt: 100 })];
    for (const order of [increments, [...increments].reverse()]) {
      expect([...mergeUsageIncrements(new Map(), order).values()]).toEqual([
        hit({ count: 5, lastUsedAt: 300 }),
      ]);
    }
  });

  it("keeps rows apart that differ in key, method, route or day", () => {
    const increments = [
      hit(),
      hit({ keyId: "key_2" }),
      hit({ method: "PUT" }),
      hit({ route: "/orgs/:id" }),
      hit({ day: "2026-01-02" }),
    ];
    const merged = mergeUsageIncrements(new Map(), increments);
    expect(merged.size).toBe(5);
    expect([...merged.values()]).toEqual(increments);
  });

  it("adds into what the map already holds and never changes the caller's objects", () => {
    const first = hit({ count: 1 });
    const into = mergeUsageIncrements(new Map(), [first]);
    const second = hit({ count: 4, lastUsedAt: 500 });
    expect(mergeUsageIncrements(into, [second])).toBe(into);
    expect(into.get(usageIncrementRow(first))).toEqual(hit({ count: 5, lastUsedAt: 500 }));
    expect(first).toEqual(hit({ count: 1 }));
    expect(second).toEqual(hit({ count: 4, lastUsedAt: 500 }));
  });
});

describe("mergeUsageIncrement", () => {
  it("refuses a new row past maxRows but still merges into rows it holds", () => {
    const into = new Map<string, UsageIncrement>();
    expect(mergeUsageIncrement(into, hit(), 1)).toBe(true);
    expect(mergeUsageIncrement(into, hit({ keyId: "key_2" }), 1)).toBe(false);
    expect(mergeUsageIncrement(into, hit({ count: 2 }), 1)).toBe(true);
    expect([...into.values()]).toEqual([hit({ count: 3 })]);
  });
});

describe("usageIncrementRow", () => {
  it("does not let parts run into each other", () => {
    expect(usageIncrementRow(hit({ method: "GET /a", route: "b" }))).not.toBe(
      usageIncrementRow(hit({ method: "GET", route: "/a b" })),
    );
  });
});
