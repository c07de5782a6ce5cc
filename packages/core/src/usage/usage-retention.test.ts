/**
 * `usage.retainDays` through `createKeyward` on the memory store: what pruning keeps, the timer,
 * the cron-style `keyward.usage.prune()`, and the configuration checks.
 */
import { describe, expect, it, vi } from "vitest";
import { manualClock } from "../clock.js";
import type { KeywardConfig } from "../keyward/config.js";
import { createKeyward } from "../keyward/create-keyward.js";
import { memoryStore } from "../memory/memory-store.js";

const start = Date.parse("2026-05-01T12:00:00.000Z");
const day = 24 * 60 * 60 * 1000;
const scopes = { "profile:read": "Read profiles" };
const tiers = { free: { rateLimit: { limit: 1_000, window: "1m" } } };

function setup(usage: KeywardConfig["usage"]) {
  const clock = manualClock(start);
  const store = memoryStore();
  const keyward = createKeyward({ store, scopes, tiers, clock, jwt: false, logger: false, usage });
  const create = () =>
    keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "bot",
      scopes: ["profile:read"],
      tier: "free",
    });
  const call = (key: string, route = "GET /p") => keyward.verify(`Bearer ${key}`, { route });
  return { clock, store, keyward, create, call };
}

describe("usage.retainDays", () => {
  it("prunes daily usage older than retainDays and keeps totals and endpoint counts", async () => {
    const { clock, keyward, create, call } = setup({ retainDays: 2, pruneIntervalMs: false });
    const { key, id } = await create();
    // Five days of traffic: day n gets n + 1 requests, on two endpoints.
    for (let n = 0; n < 5; n++) {
      for (let i = 0; i <= n; i++) await call(key, i % 2 === 0 ? "GET /p" : "POST /p");
      clock.advance(day);
    }
    clock.advance(-day); // back on the fifth day: 2026-05-05
    const before = await keyward.keys.usage("alice", id);
    expect(before.totalRequests).toBe(15);
    expect(before.daily).toHaveLength(5);

    // Kept: today (05-05) and the 2 days before it.
    expect(await keyward.usage.prune()).toEqual({ pruned: 2 });
    const after = await keyward.keys.usage("alice", id);
    expect(after.totalRequests).toBe(15);
    expect(after.endpoints).toEqual(before.endpoints);
    expect(after.lastUsedAt).toBe(before.lastUsedAt);
    expect(after.daily).toEqual([
      { date: "2026-05-03", count: 3 },
      { date: "2026-05-04", count: 4 },
      { date: "2026-05-05", count: 5 },
    ]);
    expect(await keyward.usage.prune()).toEqual({ pruned: 0 });
    await keyward.close();
  });

  it("prunes on an unref'd timer started by the first verification, stopped by close", async () => {
    vi.useFakeTimers();
    try {
      const { clock, store, keyward, create, call } = setup({
        retainDays: 1,
        pruneIntervalMs: 60_000,
      });
      const prune = vi.spyOn(store.usage, "prune" as never) as unknown as ReturnType<typeof vi.fn>;
      const { key } = await create();
      await vi.advanceTimersByTimeAsync(120_000);
      expect(prune).not.toHaveBeenCalled();
      await call(key);
      clock.advance(3 * day);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(prune).toHaveBeenCalledWith("2026-05-03");
      await keyward.close();
      await vi.advanceTimersByTimeAsync(600_000);
      expect(prune).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("is off by default: nothing is pruned and usage.prune() says how to turn it on", async () => {
    const { clock, keyward, create, call } = setup(undefined);
    const { key, id } = await create();
    await call(key);
    clock.advance(400 * day);
    await expect(keyward.usage.prune()).rejects.toThrow(/usage: \{ retainDays \}/);
    expect((await keyward.keys.usage("alice", id)).daily).toEqual([
      { date: "2026-05-01", count: 1 },
    ]);
  });

  it("refuses malformed options with the option's name", () => {
    const cases: [unknown, RegExp][] = [
      [{ retainDays: 0 }, /`usage.retainDays`/],
      [{ retainDays: 1.5 }, /`usage.retainDays`/],
      [{ retainDays: 100_000 }, /`usage.retainDays`/],
      [{ retainDays: 30, pruneIntervalMs: 0 }, /`usage.pruneIntervalMs`/],
      [{ pruneIntervalMs: 1_000 }, /without `usage.retainDays`/],
      [{ flushIntervalMs: -1 }, /`usage.flushIntervalMs`/],
      ["yes", /`usage` must be an object/],
    ];
    for (const [usage, message] of cases) {
      expect(() => setup(usage as KeywardConfig["usage"]), JSON.stringify(usage)).toThrow(message);
    }
  });

  it("refuses retainDays on a usage store that cannot prune", () => {
    const store = memoryStore();
    const { prune: _prune, ...usage } = store.usage;
    expect(() =>
      createKeyward({
        store: { ...store, usage },
        scopes,
        tiers,
        jwt: false,
        logger: false,
        usage: { retainDays: 30 },
      }),
    ).toThrow(/the usage store cannot prune/);
  });
});
