import type { KeywardStore, UsageIncrement } from "@keyward/core";
import { describe, expect, it } from "vitest";
import { uniqueId } from "./fixtures.js";
import { openStores } from "./open-stores.js";
import type { StorageSuiteOptions } from "./options.js";

export function usageStoreSuite<S extends KeywardStore>(options: StorageSuiteOptions<S>): void {
  describe("UsageStore", () => {
    const open = openStores(options);

    const hit = (keyId: string, overrides: Partial<UsageIncrement> = {}): UsageIncrement => ({
      keyId,
      method: "GET",
      route: "/api/v1/profiles/:slug",
      day: "2026-03-01",
      count: 1,
      lastUsedAt: Date.parse("2026-03-01T10:00:00.000Z"),
      ...overrides,
    });

    it("reads zero usage for a key never used", async () => {
      const { usage } = await open();
      const keyId = uniqueId("key");
      expect(await usage.read(keyId)).toEqual({
        keyId,
        totalRequests: 0,
        lastUsedAt: null,
        endpoints: [],
        daily: [],
      });
      expect((await usage.lastUsed([keyId])).has(keyId)).toBe(false);
    });

    it("adds counts per endpoint and per UTC day, keeping the latest use", async () => {
      const { usage } = await open();
      const keyId = uniqueId("key");
      await usage.record([
        hit(keyId, { count: 3 }),
        hit(keyId, {
          method: "PUT",
          count: 5,
          lastUsedAt: Date.parse("2026-03-02T09:00:00.000Z"),
          day: "2026-03-02",
        }),
        hit(keyId, {
          count: 2,
          day: "2026-03-02",
          lastUsedAt: Date.parse("2026-03-02T08:00:00.000Z"),
        }),
      ]);
      expect(await usage.read(keyId)).toEqual({
        keyId,
        totalRequests: 10,
        lastUsedAt: Date.parse("2026-03-02T09:00:00.000Z"),
        endpoints: [
          { method: "GET", route: "/api/v1/profiles/:slug", count: 5 },
          { method: "PUT", route: "/api/v1/profiles/:slug", count: 5 },
        ],
        daily: [
          { date: "2026-03-01", count: 3 },
          { date: "2026-03-02", count: 7 },
        ],
      });
    });

    it("gives the same totals however increments are split, ordered or interleaved", async () => {
      const { usage } = await open();
      const a = uniqueId("key");
      const b = uniqueId("key");
      const increments = Array.from({ length: 60 }, (_, i) =>
        hit(i % 2 ? a : b, {
          count: (i % 5) + 1,
          route: `/r${i % 3}`,
          day: `2026-03-0${(i % 4) + 1}`,
          lastUsedAt: 1_000_000 + ((i * 7919) % 600),
        }),
      );
      await Promise.all(
        [increments.slice(0, 20), increments.slice(20, 45).reverse(), increments.slice(45)].map(
          (batch) => usage.record(batch),
        ),
      );
      for (const keyId of [a, b]) {
        const mine = increments.filter((increment) => increment.keyId === keyId);
        const report = await usage.read(keyId);
        expect(report.totalRequests).toBe(mine.reduce((sum, x) => sum + x.count, 0));
        expect(report.lastUsedAt).toBe(Math.max(...mine.map((x) => x.lastUsedAt)));
        expect(report.daily.reduce((sum, x) => sum + x.count, 0)).toBe(report.totalRequests);
        expect(report.endpoints.reduce((sum, x) => sum + x.count, 0)).toBe(report.totalRequests);
        expect(report.daily.map((x) => x.date)).toEqual(
          [...new Set(mine.map((x) => x.day))].sort(),
        );
      }
    });

    it("sorts endpoints by count, then method and route in code-unit order", async () => {
      const { usage } = await open();
      const keyId = uniqueId("key");
      await usage.record([
        hit(keyId, { route: "/b", count: 2 }),
        hit(keyId, { route: "/a", count: 2 }),
        hit(keyId, { route: "/Z", count: 2 }),
        hit(keyId, { method: "DELETE", route: "/a", count: 2 }),
        hit(keyId, { route: "/c", count: 9 }),
      ]);
      const { endpoints } = await usage.read(keyId);
      expect(endpoints.map((e) => `${e.method} ${e.route}`)).toEqual([
        "GET /c",
        "DELETE /a",
        "GET /Z",
        "GET /a",
        "GET /b",
      ]);
    });

    it("reports last use for many keys at once", async () => {
      const { usage } = await open();
      const used = uniqueId("key");
      const unused = uniqueId("key");
      await usage.record([hit(used, { lastUsedAt: 42_000 }), hit(used, { lastUsedAt: 41_000 })]);
      const lastUsed = await usage.lastUsed([used, unused]);
      expect(lastUsed.get(used)).toBe(42_000);
      expect(lastUsed.has(unused)).toBe(false);
      expect((await usage.lastUsed([])).size).toBe(0);
    });

    it("accepts an empty batch", async () => {
      const { usage } = await open();
      await expect(usage.record([])).resolves.toBeUndefined();
    });
  });
}
