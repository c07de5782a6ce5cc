import type { UsageIncrement, UsageStore } from "@keyward/core";
import { describe, expect, it } from "vitest";
import { usageBacklog } from "./usage-backlog.js";

const hit = { keyId: "k", method: "GET", route: "/r", day: "2026-03-01" };

function flakyStore() {
  const written: UsageIncrement[][] = [];
  let up = false;
  const store: UsageStore = {
    async record(increments) {
      if (!up) throw new Error("down");
      written.push(increments.map((increment) => ({ ...increment })));
    },
    read: async () => {
      throw new Error("unused");
    },
    lastUsed: async () => new Map(),
  };
  return { store, written, setUp: (value: boolean) => (up = value) };
}

describe("usageBacklog", () => {
  it("merges hits, keeps them through failed writes, and writes them once Redis is back", async () => {
    const { store, written, setUp } = flakyStore();
    const backlog = usageBacklog(store, 100, () => {});
    backlog.add(hit, 1_000);
    backlog.add(hit, 3_000);
    backlog.add({ ...hit, route: "/other" }, 2_000);
    expect(backlog.size).toBe(2);
    await backlog.flush();
    expect(backlog.size).toBe(2);
    setUp(true);
    await backlog.flush();
    expect(backlog.size).toBe(0);
    expect(written).toEqual([
      [
        { ...hit, count: 2, lastUsedAt: 3_000 },
        { ...hit, route: "/other", count: 1, lastUsedAt: 2_000 },
      ],
    ]);
  });

  it("drops past its bound and says so", async () => {
    const { store, setUp } = flakyStore();
    const errors: unknown[] = [];
    const backlog = usageBacklog(store, 2, (error) => errors.push(error));
    for (const route of ["/a", "/b", "/c", "/d"]) backlog.add({ ...hit, route }, 1);
    backlog.add({ ...hit, route: "/a" }, 2); // merges: no new entry
    expect(backlog.size).toBe(2);
    setUp(true);
    await backlog.flush();
    expect(String(errors[0])).toMatch(/2 requests was dropped/);
  });

  it("keeps the latest use fields of the hits it holds, as an increment's useFields", async () => {
    const { store, written, setUp } = flakyStore();
    const backlog = usageBacklog(store, 100, () => {});
    backlog.add({ ...hit, useFields: "192.0.2.2" }, 2_000);
    backlog.add({ ...hit, useFields: "192.0.2.1" }, 1_000);
    backlog.add(hit, 3_000);
    setUp(true);
    await backlog.flush();
    expect(written).toEqual([
      [
        {
          ...hit,
          count: 3,
          lastUsedAt: 3_000,
          useFields: "192.0.2.2",
          useFieldsAt: 2_000,
        },
      ],
    ]);
  });
});
