import { describe, expect, it } from "vitest";
import { manualClock } from "../clock.js";
import { events } from "../features/events/index.js";
import type { KeywardConfig } from "../keyward/config.js";
import { createKeyward } from "../keyward/create-keyward.js";
import { memoryStore } from "../memory/memory-store.js";

const start = Date.parse("2026-07-31T23:59:00.000Z");
const scopes = { "profile:read": "Read" };

function setup(tiers: KeywardConfig["tiers"], options: Partial<KeywardConfig> = {}) {
  const clock = manualClock(start);
  const keyward = createKeyward({
    store: memoryStore(),
    scopes,
    tiers,
    clock,
    jwt: false,
    logger: false,
    ...options,
  });
  const newKey = (ownerId = "alice") =>
    keyward.keys.create({
      ownerId,
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
  const call = (key: string, cost?: number) =>
    keyward.verify(`Bearer ${key}`, { route: "GET /p", ...(cost === undefined ? {} : { cost }) });
  return { clock, keyward, newKey, call };
}

describe("layered limits on the memory store", () => {
  it("shares the owner allowance across every key of the owner, and only theirs", async () => {
    const { newKey, call } = setup({
      free: { rateLimit: { limit: 100, window: "1m" }, ownerRateLimit: { limit: 5, window: "1m" } },
    });
    const keys = await Promise.all([newKey(), newKey(), newKey()]);
    const outcomes: boolean[] = [];
    for (let i = 0; i < 9; i++) outcomes.push((await call(keys[i % 3]!.key)).ok);
    expect(outcomes.filter(Boolean)).toHaveLength(5);
    const refused = await call(keys[0]!.key);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.status).toBe(429);
    expect(refused.error.detail).toBe("Rate limit shared by all of the owner's API keys exceeded");
    expect(refused.headers["X-RateLimit-Limit"]).toBe("5");
    expect(Number(refused.headers["Retry-After"])).toBeGreaterThan(0);
    // Another owner has an allowance of their own.
    const other = await newKey("bob");
    expect((await call(other.key)).ok).toBe(true);
  });

  it("charges quota and credits only for requests it serves; a missing scope counts as an attempt", async () => {
    const seen: string[] = [];
    const { keyward, newKey } = setup(
      {
        free: {
          rateLimit: { limit: 12, window: "1m" },
          quota: { limit: 100, period: "day" },
        },
      },
      {
        scopes: { ...scopes, "profile:write": "Write" },
        features: [
          events({
            onEvent: (event) => {
              seen.push(event.type);
            },
          }),
        ],
      },
    );
    const { id, key } = await newKey();
    await keyward.keys.setLimits(id, { credits: { remaining: 10 } });
    const write = () =>
      keyward.verify(`Bearer ${key}`, { route: "PUT /p", scopes: ["profile:write"] });
    for (let i = 0; i < 10; i++) {
      const refused = await write();
      expect(refused.ok === false && refused.error.code).toBe("insufficient_scope");
    }
    const usage = await keyward.keys.usage("alice", id);
    expect(usage.credits?.remaining).toBe(10);
    expect(usage.quota?.remaining).toBe(100);
    expect(seen).not.toContain("credits.exhausted");
    // The rate limit counted them: two requests of twelve are left, and both are served.
    const read = () =>
      keyward.verify(`Bearer ${key}`, { route: "GET /p", scopes: ["profile:read"] });
    expect((await read()).ok).toBe(true);
    expect((await read()).ok).toBe(true);
    const limited = await read();
    expect(limited.ok === false && limited.error.code).toBe("rate_limited");
    const after = await keyward.keys.usage("alice", id);
    expect(after.credits?.remaining).toBe(8);
    expect(after.quota?.remaining).toBe(98);
  });

  it("keeps v0.1's detail for the per-key layer, and describes the layer with the fewest left", async () => {
    const { newKey, call } = setup({
      free: { rateLimit: { limit: 2, window: "1m" }, ownerRateLimit: { limit: 10, window: "1m" } },
    });
    const { key } = await newKey();
    const first = await call(key);
    expect(first.ok && first.headers["X-RateLimit-Limit"]).toBe("2");
    expect(first.ok && first.headers["X-RateLimit-Remaining"]).toBe("1");
    await call(key);
    const refused = await call(key);
    expect(!refused.ok && refused.error.detail).toBe("Rate limit exceeded");
    expect(!refused.ok && refused.error.code).toBe("rate_limited");
  });

  it("a tier's weekly quota resets on Monday 00:00 UTC, and its refusal says when", async () => {
    const { clock, newKey, call, keyward } = setup({
      free: { rateLimit: { limit: 1000, window: "1s" }, quota: { limit: 2, period: "week" } },
    });
    // Sunday 2026-12-06, 23:00 UTC: the week (from Monday 2026-11-30) ends in an hour.
    clock.set(Date.parse("2026-12-06T23:00:00Z"));
    const { id, key } = await newKey();
    expect((await call(key)).ok).toBe(true);
    expect((await call(key)).ok).toBe(true);
    const refused = await call(key);
    expect(!refused.ok && refused.error.code).toBe("quota_exceeded");
    expect(!refused.ok && refused.error.detail).toBe("Weekly quota exceeded");
    expect(!refused.ok && refused.headers["Retry-After"]).toBe("3600");
    expect((await keyward.keys.usage("alice", id)).quota).toEqual({
      limit: 2,
      remaining: 0,
      period: "week",
      resetsAt: "2026-12-07T00:00:00.000Z",
    });
    clock.set(Date.parse("2026-12-06T23:59:59.999Z"));
    expect((await call(key)).ok).toBe(false);
    clock.advance(1);
    expect((await call(key)).ok).toBe(true);
    // Not a new week on Thursday (the weekday of 1970-01-01), only on the next Monday.
    expect((await call(key)).ok).toBe(true);
    clock.set(Date.parse("2026-12-10T00:00:00Z"));
    expect((await call(key)).ok).toBe(false);
    clock.set(Date.parse("2026-12-14T00:00:00Z"));
    expect((await call(key)).ok).toBe(true);
  });

  it("refuses a period that is not a calendar period, naming the three there are", () => {
    expect(() =>
      setup({
        free: {
          rateLimit: { limit: 10, window: "1s" },
          quota: { limit: 2, period: "year" as never },
        },
      }),
    ).toThrow('Invalid quota period "year": expected "day", "week" or "month"');
  });

  it("admits exactly the quota per UTC period, then resets at the period boundary", async () => {
    const { clock, newKey, call, keyward } = setup({
      free: { rateLimit: { limit: 1000, window: "1s" }, quota: { limit: 4, period: "month" } },
    });
    const a = await newKey();
    const b = await newKey();
    const admitted = [];
    for (let i = 0; i < 6; i++) admitted.push((await call(i % 2 ? a.key : b.key)).ok);
    expect(admitted).toEqual([true, true, true, true, false, false]);
    const refused = await call(a.key);
    expect(!refused.ok && refused.error.detail).toBe("Monthly quota exceeded");
    expect(!refused.ok && refused.error.code).toBe("quota_exceeded");
    // 23:59 on July 31st: the next month begins in 60 s.
    expect(!refused.ok && refused.headers["Retry-After"]).toBe("60");
    expect(!refused.ok && refused.headers["X-RateLimit-Reset"]).toBe(
      String(Date.parse("2026-08-01T00:00:00Z") / 1000),
    );
    const report = await keyward.keys.usage("alice", a.id);
    expect(report.quota).toEqual({
      limit: 4,
      remaining: 0,
      period: "month",
      resetsAt: "2026-08-01T00:00:00.000Z",
    });
    expect(report.credits).toBeUndefined();
    clock.set(Date.parse("2026-08-01T00:00:00Z"));
    expect((await call(a.key)).ok).toBe(true);
  });

  it("spends credits by cost, never below zero, and refills at the period start", async () => {
    const { clock, newKey, call, keyward } = setup({
      free: { rateLimit: { limit: 1000, window: "1s" } },
    });
    const { key, id } = await newKey();
    await keyward.keys.setLimits(id, {
      credits: { remaining: 10, refill: { amount: 7, period: "day" } },
    });
    expect((await call(key, 6)).ok).toBe(true);
    const tooDear = await call(key, 5);
    expect(!tooDear.ok && tooDear.error.detail).toBe("API key has no credits left");
    expect(!tooDear.ok && tooDear.error.code).toBe("credits_exhausted");
    expect(!tooDear.ok && tooDear.headers["Retry-After"]).toBe("60");
    expect((await call(key, 4)).ok).toBe(true);
    expect((await call(key)).ok).toBe(false);
    expect((await keyward.keys.usage("alice", id)).credits).toEqual({
      remaining: 0,
      refill: { amount: 7, period: "day" },
      refillsAt: "2026-08-01T00:00:00.000Z",
    });
    clock.set(Date.parse("2026-08-01T00:00:00Z"));
    expect((await call(key, 7)).ok).toBe(true);
    expect((await call(key)).ok).toBe(false);
  });

  it("credits without a refill refuse without a Retry-After, until an operator grants more", async () => {
    const { newKey, call, keyward } = setup({ free: { rateLimit: { limit: 1000, window: "1s" } } });
    const { key, id } = await newKey();
    await keyward.keys.setLimits(id, { credits: { remaining: 1 } });
    expect((await call(key)).ok).toBe(true);
    const refused = await call(key);
    expect(refused.ok).toBe(false);
    expect(refused.headers["Retry-After"]).toBeUndefined();
    expect(refused.headers["X-RateLimit-Remaining"]).toBe("0");
    await keyward.keys.setLimits(id, { credits: { remaining: 2 } });
    expect((await call(key)).ok).toBe(true);
  });

  it("is all-or-nothing: a refusal by one layer consumes from none", async () => {
    const { newKey, call, keyward } = setup({
      free: {
        rateLimit: { limit: 1000, window: "1m" },
        ownerRateLimit: { limit: 1000, window: "1m" },
        quota: { limit: 1000, period: "day" },
      },
    });
    const { key, id } = await newKey();
    await keyward.keys.setLimits(id, { credits: { remaining: 3 } });
    expect((await call(key, 3)).ok).toBe(true);
    for (let i = 0; i < 5; i++) expect((await call(key)).ok).toBe(false);
    // The refused calls spent nothing: remaining is as after the one admitted request.
    const report = await keyward.keys.usage("alice", id);
    expect(report.quota?.remaining).toBe(999);
    await keyward.keys.setLimits(id, { credits: { remaining: 1 } });
    const next = await call(key);
    expect(next.ok && next.headers["X-RateLimit-Remaining"]).toBe("998");
  });

  it("follows per-key overrides: a layer off, another limit", async () => {
    const { newKey, call, keyward } = setup({
      free: { rateLimit: { limit: 1000, window: "1m" }, quota: { limit: 1, period: "day" } },
    });
    const { key, id } = await newKey();
    expect((await call(key)).ok).toBe(true);
    expect((await call(key)).ok).toBe(false);
    await keyward.keys.setLimits(id, { quota: { limit: 3, period: "day" } });
    expect((await call(key)).ok).toBe(true);
    expect((await call(key)).ok).toBe(true);
    expect((await call(key)).ok).toBe(false);
    await keyward.keys.setLimits(id, { quota: false, rateLimit: { limit: 1, window: "1m" } });
    expect((await call(key)).ok).toBe(true);
    expect((await call(key)).ok).toBe(false);
    await keyward.keys.setLimits(id, null);
    expect((await call(key)).ok).toBe(false);
    await expect(
      keyward.keys.setLimits(id, { quota: { limit: 0, period: "day" } }),
    ).rejects.toThrow(TypeError);
  });

  it("lists every policy in the IETF fields", async () => {
    const { newKey, call } = setup(
      {
        free: {
          rateLimit: { limit: 10, window: "1m" },
          ownerRateLimit: { limit: 20, window: "1m" },
          quota: { limit: 1000, period: "day" },
        },
      },
      { http: { rateLimitHeaders: { ietf: true } } },
    );
    const { key } = await newKey();
    const result = await call(key);
    expect(result.headers["RateLimit-Policy"]).toBe(
      '"free";q=10;w=60, "owner";q=20;w=60, "quota";q=1000;w=86400',
    );
    expect(result.headers.RateLimit).toMatch(
      /^"free";r=9;t=\d+, "owner";r=19;t=\d+, "quota";r=999;t=60$/,
    );
  });

  it("leaves a v0.1 configuration's responses as they were", async () => {
    const { newKey, call, keyward } = setup({ free: { rateLimit: { limit: 2, window: "1m" } } });
    const { key, id } = await newKey();
    const result = await call(key);
    expect(Object.keys(result.headers).sort()).toEqual([
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
    ]);
    const report = await keyward.keys.usage("alice", id);
    expect(Object.keys(report).sort()).toEqual([
      "daily",
      "endpoints",
      "keyId",
      "lastUsedAt",
      "totalRequests",
    ]);
  });
});
