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
      expect(lastUsed.get(used)).toEqual({ at: 42_000 });
      expect(lastUsed.has(unused)).toBe(false);
      expect((await usage.lastUsed([])).size).toBe(0);
    });

    describe("the fields of the last use (useFields: a feature's key fields written by uses)", () => {
      /** A use-fields text as the kernel writes it; the store keeps it unread. */
      const f = (value: string) => JSON.stringify({ lastUse: value });
      const t = (n: number) => Date.parse("2026-03-01T10:00:00.000Z") + n * 1_000;
      /** Uses of one key over several rows: the latest with use fields is at t(7), from .7. */
      const uses = (keyId: string): UsageIncrement[] => [
        hit(keyId, { lastUsedAt: t(1), useFields: f("192.0.2.1") }),
        hit(keyId, { lastUsedAt: t(9), method: "PUT" }),
        hit(keyId, { lastUsedAt: t(7), route: "/b", useFields: f("192.0.2.7") }),
        hit(keyId, { lastUsedAt: t(3), day: "2026-03-02", useFields: f("2001:db8::3") }),
        // A later use without use fields (t(8)) in the same increment as one from .5 at t(5).
        hit(keyId, { lastUsedAt: t(8), useFields: f("192.0.2.5"), useFieldsAt: t(5) }),
        hit(keyId, { lastUsedAt: t(2), route: "/b", useFields: f("192.0.2.2") }),
      ];

      it("keeps the latest use's fields, however increments are split, ordered or interleaved", async () => {
        const { usage } = await open();
        const orders = [
          (list: UsageIncrement[]) => [list],
          (list: UsageIncrement[]) => [[...list].reverse()],
          (list: UsageIncrement[]) => list.map((increment) => [increment]),
          (list: UsageIncrement[]) => [list.slice(0, 3).reverse(), list.slice(3)],
          (list: UsageIncrement[]) => [
            [list[4]!, list[2]!],
            [list[0]!, list[5]!, list[1]!, list[3]!],
          ],
        ];
        for (const split of orders) {
          const keyId = uniqueId("key");
          for (const batch of split(uses(keyId))) await usage.record(batch);
          const report = await usage.read(keyId);
          expect(report.lastUsedAt).toBe(t(9));
          expect(report.useFields).toBe(f("192.0.2.7"));
          expect(report.totalRequests).toBe(6);
          expect((await usage.lastUsed([keyId])).get(keyId)).toEqual({
            at: t(9),
            useFields: f("192.0.2.7"),
          });
        }
      });

      it("keeps it under concurrent writers, each with some of the uses", async () => {
        const { usage } = await open();
        const keyId = uniqueId("key");
        const many = Array.from({ length: 40 }, (_, i) =>
          hit(keyId, {
            route: `/r${i % 4}`,
            lastUsedAt: t((i * 17) % 40),
            ...(i % 3 === 0 ? {} : { useFields: f(`198.51.100.${(i * 17) % 40}`) }),
          }),
        );
        await Promise.all(many.map((increment) => usage.record([increment])));
        const withFields = many.filter((x) => x.useFields !== undefined);
        const latest = withFields.reduce((a, b) => (b.lastUsedAt > a.lastUsedAt ? b : a));
        const report = await usage.read(keyId);
        expect(report.totalRequests).toBe(40);
        expect(report.useFields).toBe(latest.useFields);
      });

      it("leaves the stored use fields alone for an increment without any, even a later one", async () => {
        const { usage } = await open();
        const keyId = uniqueId("key");
        await usage.record([hit(keyId, { lastUsedAt: t(1), useFields: f("192.0.2.1") })]);
        await usage.record([hit(keyId, { lastUsedAt: t(5) })]);
        await usage.record([hit(keyId, { lastUsedAt: t(6), method: "PUT", day: "2026-03-02" })]);
        const report = await usage.read(keyId);
        expect(report.lastUsedAt).toBe(t(6));
        expect(report.useFields).toBe(f("192.0.2.1"));
        // Older use fields than those kept do not replace them either.
        await usage.record([hit(keyId, { lastUsedAt: t(0), useFields: f("192.0.2.9") })]);
        expect((await usage.read(keyId)).useFields).toBe(f("192.0.2.1"));
      });

      it("keeps the greater text of two at the same millisecond, in either order", async () => {
        const { usage } = await open();
        const a = hit("", { lastUsedAt: t(1), useFields: f("192.0.2.1") });
        const b = hit("", { lastUsedAt: t(1), route: "/b", useFields: f("2001:db8::1") });
        for (const order of [
          [a, b],
          [b, a],
        ]) {
          const keyId = uniqueId("key");
          for (const increment of order) await usage.record([{ ...increment, keyId }]);
          expect((await usage.read(keyId)).useFields).toBe(f("2001:db8::1"));
        }
      });

      it("shows no use fields for a key whose uses had none", async () => {
        const { usage } = await open();
        const keyId = uniqueId("key");
        await usage.record([hit(keyId)]);
        expect(await usage.read(keyId)).not.toHaveProperty("useFields");
        expect((await usage.lastUsed([keyId])).get(keyId)).toEqual({ at: hit(keyId).lastUsedAt });
      });

      it("keeps the text as given, spaces, quotes and escapes included", async () => {
        const { usage } = await open();
        const keyId = uniqueId("key");
        const text = JSON.stringify({
          a: "x y",
          b: ['"q"', "\\"],
          c: "caf\u00e9 \\u00e9",
          d: null,
        });
        await usage.record([hit(keyId, { lastUsedAt: t(1), useFields: text })]);
        expect((await usage.read(keyId)).useFields).toBe(text);
        expect((await usage.lastUsed([keyId])).get(keyId)).toEqual({ at: t(1), useFields: text });
      });
    });

    it("accepts an empty batch", async () => {
      const { usage } = await open();
      await expect(usage.record([])).resolves.toBeUndefined();
    });

    describe.skipIf(options.skipUsagePrune)("prune (usage.retainDays)", () => {
      // Days in 1990: no other test records there, so pruning before 1990-01-04 touches only these.
      const day = (n: number) => `1990-01-0${n}`;
      const f = (value: string) => JSON.stringify({ lastUse: value });
      const at = (n: number) => Date.parse(`${day(n)}T12:00:00.000Z`);
      const history = (keyId: string): UsageIncrement[] => [
        hit(keyId, { day: day(1), count: 2, lastUsedAt: at(1) }),
        hit(keyId, { day: day(2), count: 3, lastUsedAt: at(2), method: "POST" }),
        hit(keyId, { day: day(3), count: 4, lastUsedAt: at(3) }),
        hit(keyId, { day: day(5), count: 1, lastUsedAt: at(5), method: "POST" }),
      ];
      const expectedAfterPrune = (keyId: string) => ({
        keyId,
        totalRequests: 10,
        lastUsedAt: at(5),
        endpoints: [
          { method: "GET", route: "/api/v1/profiles/:slug", count: 6 },
          { method: "POST", route: "/api/v1/profiles/:slug", count: 4 },
        ],
        daily: [{ date: day(5), count: 1 }],
      });

      it("removes the days before the cutoff and keeps totals, endpoints and last use", async () => {
        const { usage } = await open();
        if (!usage.prune) throw new Error("this store's usage has no prune()");
        const keyId = uniqueId("key");
        await usage.record(history(keyId));
        expect(await usage.prune(day(4))).toBeGreaterThanOrEqual(3);
        expect(await usage.read(keyId)).toEqual(expectedAfterPrune(keyId));
        // Idempotent: nothing left to prune for this key, nothing changes.
        await usage.prune(day(4));
        expect(await usage.read(keyId)).toEqual(expectedAfterPrune(keyId));
        expect((await usage.lastUsed([keyId])).get(keyId)).toEqual({ at: at(5) });
      });

      it("keeps the fields of the latest use through a prune, and records later ones after it", async () => {
        const { usage } = await open();
        if (!usage.prune) throw new Error("this store's usage has no prune()");
        const keyId = uniqueId("key");
        await usage.record([
          hit(keyId, { day: day(1), lastUsedAt: at(1), useFields: f("192.0.2.1") }),
          hit(keyId, { day: day(2), lastUsedAt: at(2), useFields: f("192.0.2.2") }),
          hit(keyId, { day: day(3), lastUsedAt: at(3) }),
        ]);
        await usage.prune(day(4));
        expect((await usage.read(keyId)).useFields).toBe(f("192.0.2.2"));
        expect((await usage.lastUsed([keyId])).get(keyId)).toEqual({
          at: at(3),
          useFields: f("192.0.2.2"),
        });
        // A late batch for a pruned day with older use fields changes nothing; a newer one wins.
        await usage.record([
          hit(keyId, { day: day(1), lastUsedAt: at(1) + 1, useFields: f("198.51.100.1") }),
        ]);
        await usage.prune(day(4));
        expect((await usage.read(keyId)).useFields).toBe(f("192.0.2.2"));
        await usage.record([
          hit(keyId, { day: day(5), lastUsedAt: at(5), useFields: f("2001:db8::5") }),
        ]);
        expect((await usage.read(keyId)).useFields).toBe(f("2001:db8::5"));
      });

      it("keeps counting a pruned day recorded late, and prunes it again", async () => {
        const { usage } = await open();
        if (!usage.prune) throw new Error("this store's usage has no prune()");
        const keyId = uniqueId("key");
        await usage.record(history(keyId));
        await usage.prune(day(4));
        // A late batch (a flush retried after an outage) for a day already pruned.
        await usage.record([hit(keyId, { day: day(2), count: 5, lastUsedAt: at(2) })]);
        expect((await usage.read(keyId)).totalRequests).toBe(15);
        expect((await usage.read(keyId)).daily).toEqual([
          { date: day(2), count: 5 },
          { date: day(5), count: 1 },
        ]);
        await usage.prune(day(4));
        const report = await usage.read(keyId);
        expect(report.totalRequests).toBe(15);
        expect(report.endpoints).toEqual([
          { method: "GET", route: "/api/v1/profiles/:slug", count: 11 },
          { method: "POST", route: "/api/v1/profiles/:slug", count: 4 },
        ]);
        expect(report.daily).toEqual([{ date: day(5), count: 1 }]);
      });

      it("loses and doubles nothing when several prunes and writes run at once", async () => {
        const { usage } = await open();
        if (!usage.prune) throw new Error("this store's usage has no prune()");
        const keyIds = Array.from({ length: 30 }, () => uniqueId("key"));
        await usage.record(keyIds.flatMap(history));
        await Promise.all([
          usage.prune(day(4)),
          usage.prune(day(4)),
          usage.record(
            keyIds.map((keyId) => hit(keyId, { day: day(5), count: 1, lastUsedAt: at(5) })),
          ),
          usage.prune(day(4)),
        ]);
        for (const keyId of keyIds) {
          const report = await usage.read(keyId);
          expect(report.totalRequests).toBe(11);
          expect(report.daily).toEqual([{ date: day(5), count: 2 }]);
          expect(report.endpoints).toEqual([
            { method: "GET", route: "/api/v1/profiles/:slug", count: 7 },
            { method: "POST", route: "/api/v1/profiles/:slug", count: 4 },
          ]);
        }
      });

      it("leaves keys with only recent days alone", async () => {
        const { usage } = await open();
        if (!usage.prune) throw new Error("this store's usage has no prune()");
        const keyId = uniqueId("key");
        await usage.record([hit(keyId, { day: day(5), count: 7, lastUsedAt: at(5) })]);
        await usage.prune(day(4));
        expect((await usage.read(keyId)).daily).toEqual([{ date: day(5), count: 7 }]);
        expect((await usage.read(keyId)).totalRequests).toBe(7);
      });
    });
  });
}
