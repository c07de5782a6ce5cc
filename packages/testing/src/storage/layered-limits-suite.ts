import type { KeywardStore, LimitLayer } from "@keyward/core";
import { layeredLimiter } from "@keyward/core/toolkit";
import { describe, expect, it } from "vitest";
import { storedKey, uniqueId } from "./fixtures.js";
import { openStores } from "./open-stores.js";
import type { StorageSuiteOptions } from "./options.js";

/** One owner's layers for one key: each limit given, or that layer left out. */
function layersFor(
  owner: string,
  keyId: string,
  limits: { key?: number; owner?: number; quota?: number; credits?: number; cost?: number },
  grantedAt = 1,
): LimitLayer[] {
  const layers: LimitLayer[] = [
    {
      layer: "key",
      bucket: `key:${keyId}`,
      policy: { algorithm: "sliding-window", limit: limits.key ?? 1_000, windowMs: 3_600_000 },
    },
  ];
  if (limits.owner !== undefined) {
    layers.push({
      layer: "owner",
      bucket: `owner:${owner}`,
      policy: { algorithm: "fixed-window", limit: limits.owner, windowMs: 3_600_000 },
    });
  }
  if (limits.quota !== undefined) {
    layers.push({ layer: "quota", bucket: `quota:${owner}`, limit: limits.quota, period: "month" });
  }
  if (limits.credits !== undefined) {
    layers.push({
      layer: "credits",
      bucket: `credits:${keyId}`,
      cost: limits.cost ?? 1,
      remaining: limits.credits,
      grantedAt,
    });
  }
  return layers;
}

/**
 * Layered limits (`consumeLayers`, and an `AllowanceStore` beside per-instance rate limits): every
 * layer admits exactly its limit under concurrency, a refusal by one layer consumes from none, and
 * reads change nothing. On real time, with hour-long windows and monthly quotas no test crosses.
 */
export function layeredLimitsSuite<S extends KeywardStore>(options: StorageSuiteOptions<S>): void {
  describe("layered limits", () => {
    const open = openStores(options);
    const limiterOf = async () => {
      const store = await open();
      const limiter = layeredLimiter(store.rateLimits, store.allowances);
      if (!limiter) throw new Error("the store's rate limits have no consumeLayers");
      return limiter;
    };

    it("admits exactly the tightest layer's limit when many requests arrive at once", async () => {
      const limiter = await limiterOf();
      for (const tightest of ["owner", "quota", "credits"] as const) {
        const owner = `user:${uniqueId("owner")}`;
        const limits = { owner: 30, quota: 30, credits: 30, [tightest]: 7 };
        const keyIds = [uniqueId("k"), uniqueId("k"), uniqueId("k")];
        const decisions = await Promise.all(
          Array.from({ length: 24 }, (_, i) => {
            const keyId = keyIds[i % 3]!;
            // Credits are per key: only the first key has the tight balance.
            const own =
              tightest === "credits" ? { ...limits, credits: i % 3 === 0 ? 7 : 30 } : limits;
            return limiter.consume({
              owner,
              layers: layersFor(owner, keyId, own),
              now: Date.now(),
            });
          }),
        );
        const admitted = decisions.filter((decision) => decision.allowed).length;
        // Credits bind only the first key's 8 requests: 7 of them, plus the other keys' 16.
        expect(admitted, tightest).toBe(tightest === "credits" ? 23 : 7);
        for (const decision of decisions) {
          if (decision.allowed) continue;
          const refusing = decision.layers.filter((layer) => !layer.allowed).map((l) => l.layer);
          expect(refusing, tightest).toEqual([tightest]);
        }
      }
    });

    it("answers at once (consumeNow) exactly as through promises, on one shared state", async (context) => {
      const limiter = await limiterOf();
      const consumeNow = limiter.consumeNow;
      // Only when every layer lives in this process's memory.
      if (!consumeNow) return context.skip();
      const owner = `user:${uniqueId("owner")}`;
      const layers = layersFor(owner, uniqueId("k"), { key: 50, owner: 50, quota: 5, credits: 50 });
      const now = Date.now();
      const remaining: number[] = [];
      for (let i = 0; i < 4; i++) {
        remaining.push(consumeNow({ owner, layers, now }).layers[2]!.remaining);
        remaining.push((await limiter.consume({ owner, layers, now })).layers[2]!.remaining);
      }
      // The quota of 5, spent by both in turn, then refused by both: nothing spent past it.
      expect(remaining).toEqual([4, 3, 2, 1, 0, 0, 0, 0]);
      const read = await limiter.read({ owner, layers, now });
      expect(read.map((layer) => layer.remaining)).toEqual([45, 45, 0, 45]);
    });

    it("is all-or-nothing: a refusal by one layer leaves every other layer's count as it was", async () => {
      const limiter = await limiterOf();
      const owner = `user:${uniqueId("owner")}`;
      const keyId = uniqueId("k");
      const layers = layersFor(owner, keyId, {
        key: 50,
        owner: 50,
        quota: 50,
        credits: 10,
        cost: 4,
      });
      const now = () => Date.now();
      expect((await limiter.consume({ owner, layers, now: now() })).allowed).toBe(true);
      expect((await limiter.consume({ owner, layers, now: now() })).allowed).toBe(true);
      // 2 credits left, 4 needed: refused by credits alone, five times.
      for (let i = 0; i < 5; i++) {
        const refused = await limiter.consume({ owner, layers, now: now() });
        expect(refused.allowed).toBe(false);
        expect(refused.layers.map((layer) => layer.allowed)).toEqual([true, true, true, false]);
      }
      const read = await limiter.read({ owner, layers, now: now() });
      expect(read.map((layer) => [layer.layer, layer.remaining])).toEqual([
        ["key", 48],
        ["owner", 48],
        ["quota", 48],
        ["credits", 2],
      ]);
      // Refused by the quota: the credits stay where they were.
      const quotaBound = layersFor(owner, keyId, { key: 50, quota: 2, credits: 10, cost: 1 });
      const refused = await limiter.consume({ owner, layers: quotaBound, now: now() });
      expect(refused.layers.map((layer) => layer.allowed)).toEqual([true, false, true]);
      const after = await limiter.read({ owner, layers: quotaBound, now: now() });
      expect(after.map((layer) => layer.remaining)).toEqual([48, 0, 2]);
    });

    it("starts a new grant's balance over, and reads without spending", async () => {
      const limiter = await limiterOf();
      const owner = `user:${uniqueId("owner")}`;
      const keyId = uniqueId("k");
      const first = layersFor(owner, keyId, { credits: 1 }, 100);
      expect((await limiter.consume({ owner, layers: first, now: Date.now() })).allowed).toBe(true);
      expect((await limiter.consume({ owner, layers: first, now: Date.now() })).allowed).toBe(
        false,
      );
      for (let i = 0; i < 3; i++) {
        expect((await limiter.read({ owner, layers: first, now: Date.now() }))[1]!.remaining).toBe(
          0,
        );
      }
      const regranted = layersFor(owner, keyId, { credits: 2 }, 101);
      const read = await limiter.read({ owner, layers: regranted, now: Date.now() });
      expect(read[1]!.remaining).toBe(2);
      expect((await limiter.consume({ owner, layers: regranted, now: Date.now() })).allowed).toBe(
        true,
      );
    });

    it("rolls quotas and credit refills at UTC boundaries on a manual clock: a day, an ISO week, a month", async () => {
      const limiter = await limiterOf();
      const at = (iso: string) => Date.parse(iso);
      const periods = [
        // [period, first use, the last instant of its period, the next period, the one after]
        ["day", "2026-12-06T09:00:00Z", "2026-12-06T23:59:59.999Z", "2026-12-07", "2026-12-08"],
        // A week from a Thursday (1970-01-01's weekday) to Sunday night; Monday starts the next.
        ["week", "2026-12-10T09:00:00Z", "2026-12-13T23:59:59.999Z", "2026-12-14", "2026-12-21"],
        // An ISO week across the year: Monday 2026-12-28 to Monday 2027-01-04.
        ["week", "2026-12-31T12:00:00Z", "2027-01-03T23:59:59.999Z", "2027-01-04", "2027-01-11"],
        ["month", "2026-12-31T09:00:00Z", "2026-12-31T23:59:59.999Z", "2027-01-01", "2027-02-01"],
      ] as const;
      for (const [period, first, lastInstant, next, afterNext] of periods) {
        for (const kind of ["quota", "credits"] as const) {
          const what = `${kind} per ${period} from ${first}`;
          const owner = `user:${uniqueId("owner")}`;
          const keyId = uniqueId("k");
          const layer: LimitLayer =
            kind === "quota"
              ? { layer: "quota", bucket: `quota:${owner}`, limit: 2, period }
              : {
                  layer: "credits",
                  bucket: `credits:${keyId}`,
                  cost: 1,
                  remaining: 2,
                  grantedAt: 1,
                  refill: { amount: 2, period },
                };
          const layers = [layersFor(owner, keyId, {})[0]!, layer];
          const consume = (now: number) => limiter.consume({ owner, layers, now });
          expect((await consume(at(first))).allowed, what).toBe(true);
          expect((await consume(at(first))).allowed, what).toBe(true);
          const refused = await consume(at(first));
          expect(refused.allowed, what).toBe(false);
          // Refused until the next period's first instant, and it says so.
          expect(refused.layers[1], what).toMatchObject({
            allowed: false,
            remaining: 0,
            reset: at(`${next}T00:00:00Z`),
            retryAfter: at(`${next}T00:00:00Z`) - at(first),
          });
          expect((await consume(at(lastInstant))).allowed, what).toBe(false);
          const rolled = await consume(at(`${next}T00:00:00Z`));
          expect(rolled.allowed, what).toBe(true);
          expect(rolled.layers[1], what).toMatchObject({
            remaining: 1,
            reset: at(`${afterNext}T00:00:00Z`),
          });
        }
      }
    });

    it("keeps a key's limits with its record, when the key store has setLimits", async () => {
      const { keys } = await open();
      if (!keys.setLimits) return;
      const key = storedKey();
      await keys.create(key);
      const limits = {
        quota: { limit: 5, period: "day" as const },
        ownerRateLimit: false as const,
        credits: { remaining: 3, refill: { amount: 3, period: "month" as const }, grantedAt: 7 },
      };
      const updated = await keys.setLimits(key.id, limits);
      expect(updated?.limits).toEqual(limits);
      expect((await keys.findById(key.id))?.limits).toEqual(limits);
      expect((await keys.findByHash(key.secretHash))?.limits).toEqual(limits);
      const cleared = await keys.setLimits(key.id, null);
      expect(cleared?.limits ?? null).toBeNull();
      expect((await keys.findById(key.id))?.limits ?? null).toBeNull();
      expect(await keys.setLimits(uniqueId("missing"), limits)).toBeNull();
    });

    it("sets a key's limits in update, with the other fields, when the key store has setLimits", async () => {
      const { keys } = await open();
      if (!keys.setLimits) return;
      const key = storedKey();
      await keys.create(key);
      const limits = {
        rateLimit: { limit: 9, window: "1m" },
        quota: false as const,
        credits: { remaining: 4, grantedAt: 11 },
      };
      const updated = await keys.update(key.id, { name: "metered", limits, disabledAt: 5_000 });
      const expected = { ...key, name: "metered", limits, disabledAt: 5_000, version: 2 };
      expect(updated).toEqual(expected);
      expect(await keys.findById(key.id)).toEqual(expected);
      expect(await keys.findByHash(key.secretHash)).toEqual(expected);
      // Left out, they stay; null clears them.
      expect((await keys.update(key.id, { name: "renamed" }))?.limits).toEqual(limits);
      const cleared = await keys.update(key.id, { limits: null });
      expect(cleared?.limits ?? null).toBeNull();
      expect(cleared?.name).toBe("renamed");
      expect((await keys.findById(key.id))?.limits ?? null).toBeNull();
      // A revoked key's update changes nothing, its limits included.
      await keys.revoke(key.id, 6_000);
      expect(await keys.update(key.id, { limits })).toBeNull();
      expect((await keys.findById(key.id))?.limits ?? null).toBeNull();
    });
  });
}
