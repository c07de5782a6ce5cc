import { describe, expect, it } from "vitest";
import {
  isLaterUse,
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

describe("mergeUsageIncrements: the latest use fields", () => {
  const addressed = (lastUsedAt: number, address?: string, count = 1) =>
    hit(address === undefined ? { lastUsedAt, count } : { lastUsedAt, count, useFields: address });
  const increments = [
    addressed(100, "192.0.2.1"),
    addressed(300),
    addressed(200, "192.0.2.2"),
    addressed(150, "192.0.2.3"),
  ];
  const permutations = (list: UsageIncrement[]): UsageIncrement[][] =>
    list.length <= 1
      ? [list]
      : list.flatMap((first, i) =>
          permutations([...list.slice(0, i), ...list.slice(i + 1)]).map((rest) => [first, ...rest]),
        );

  it("keeps the use fields of the latest increment that has some, in every order", () => {
    for (const order of permutations(increments)) {
      const [merged] = [...mergeUsageIncrements(new Map(), order).values()];
      expect(merged).toMatchObject({
        count: 4,
        lastUsedAt: 300,
        useFields: "192.0.2.2",
        useFieldsAt: 200,
      });
    }
  });

  it("keeps it however the increments are merged in steps (batches merged again)", () => {
    for (const order of permutations(increments)) {
      const first = [...mergeUsageIncrements(new Map(), order.slice(0, 2)).values()];
      const second = [...mergeUsageIncrements(new Map(), order.slice(2)).values()];
      const [merged] = [...mergeUsageIncrements(new Map(), [...second, ...first]).values()];
      expect(merged).toMatchObject({ lastUsedAt: 300, useFields: "192.0.2.2" });
      expect(merged?.useFieldsAt ?? merged?.lastUsedAt).toBe(200);
    }
  });

  it("takes the use fields' own time (useFieldsAt) over the increment's lastUsedAt", () => {
    const early = hit({ lastUsedAt: 500, useFields: "192.0.2.9", useFieldsAt: 100 });
    const [merged] = [
      ...mergeUsageIncrements(new Map(), [early, addressed(200, "192.0.2.2")]).values(),
    ];
    expect(merged).toMatchObject({ lastUsedAt: 500, useFields: "192.0.2.2" });
  });

  it("breaks a tie of one millisecond by the greater text, in either order", () => {
    const a = addressed(100, "192.0.2.1");
    const b = addressed(100, "2001:db8::1");
    for (const order of [
      [a, b],
      [b, a],
    ]) {
      const [merged] = [...mergeUsageIncrements(new Map(), order).values()];
      expect(merged?.useFields).toBe("2001:db8::1");
    }
  });

  it("leaves increments without use fields without any", () => {
    const [merged] = [...mergeUsageIncrements(new Map(), [addressed(1), addressed(2)]).values()];
    expect(merged).toEqual(hit({ count: 2, lastUsedAt: 2 }));
  });
});

describe("isLaterUse", () => {
  it("prefers a later use, then the greater text, and anything to none", () => {
    expect(isLaterUse(2, "a", 1, "b")).toBe(true);
    expect(isLaterUse(1, "a", 2, "b")).toBe(false);
    expect(isLaterUse(1, "b", 1, "a")).toBe(true);
    expect(isLaterUse(1, "a", 1, "b")).toBe(false);
    expect(isLaterUse(1, "a", 1, "a")).toBe(false);
    expect(isLaterUse(0, "a", undefined, undefined)).toBe(true);
  });
});
