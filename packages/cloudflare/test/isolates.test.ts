/**
 * Two Worker services in workerd (two isolates, as two Workers or two locations on Cloudflare) on
 * one Durable Object namespace: the layered limits admit exactly their limits across both, credits
 * are never overspent with concurrent requests, and a revocation made anywhere is refused by the
 * other isolate on its very next request, though that isolate holds the key in its cache.
 * Keys are made and read back from Node, through Miniflare's proxy of the same namespace.
 * (Holds and budgets, which Keyward does not have yet, are not covered.)
 */
import { createKeyward, type Keyward, type KeywardConfig, manualClock } from "@keyward/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cloudflareStore } from "../src/index.js";
import { startWorkerd, type Workerd } from "./support/miniflare.js";
import type { RunJob, RunResult } from "./support/test-app.js";

const isolates = 2;
const perIsolate = 300;
const beforeMidnight = Date.parse("2026-07-31T23:59:50Z");
const afterMidnight = Date.parse("2026-08-01T00:00:05Z");
const open = { limit: 1_000_000, window: "1h" } as const;

let workerd: Workerd;
let run = 0;

beforeAll(async () => {
  workerd = await startWorkerd({ workers: isolates });
}, 60_000);
afterAll(async () => {
  await workerd?.dispose();
});

describe.each(["owner", "key"] as const)("two isolates, limits per %s", (limitObjects) => {
  const freshPrefix = () => {
    run += 1;
    return `iso${process.pid}_${run}_`;
  };

  const admin = async (prefix: string, tiers: KeywardConfig["tiers"], now: number) =>
    createKeyward({
      store: cloudflareStore({ namespace: await workerd.namespace(), prefix, limitObjects }),
      scopes: { "profile:read": "Read", "profile:write": "Write" },
      tiers,
      clock: manualClock(now),
      jwt: false,
      logger: false,
    });

  const keysOf = async (keyward: Keyward) => {
    const ownerId = `owner-${Math.random().toString(36).slice(2)}`;
    const create = () =>
      keyward.keys.create({
        ownerId,
        accountTier: "free",
        name: "k",
        scopes: ["profile:read"],
        tier: "free",
      });
    return { ownerId, keys: [await create(), await create(), await create()] };
  };

  /** Both isolates send `perIsolate` requests at once; the per-key admitted counts, summed. */
  const hammer = async (
    job: Omit<RunJob, "requests" | "inFlight" | "limitObjects">,
    { contended = true } = {},
  ) => {
    const results = await Promise.all(
      Array.from({ length: isolates }, async (_, index) => {
        const response = await workerd.fetch(`worker${index}`, "/run", {
          method: "POST",
          body: JSON.stringify({ ...job, requests: perIsolate, inFlight: 8, limitObjects }),
        });
        return (await response.json()) as RunResult;
      }),
    );
    const admitted = job.keys.map((_, index) =>
      results.reduce((sum, r) => sum + r.admitted[index]!, 0),
    );
    const refusals: Record<string, number> = {};
    for (const result of results) {
      for (const [detail, count] of Object.entries(result.refusals))
        refusals[detail] = (refusals[detail] ?? 0) + count;
    }
    // The isolates really did contend: both got requests admitted (every limit here is more than
    // one isolate's requests, so neither can take it all alone).
    if (contended) {
      expect(results.filter((r) => r.admitted.some((n) => n > 0)).length).toBe(isolates);
    }
    return { admitted, refusals, total: admitted.reduce((a, b) => a + b, 0) };
  };

  it("the owner's shared allowance admits exactly its limit across both isolates", async () => {
    const prefix = freshPrefix();
    const tiers = {
      free: {
        rateLimit: open,
        ownerRateLimit: { limit: 400, window: "1d", algorithm: "fixed-window" as const },
      },
    };
    const { keys } = await keysOf(await admin(prefix, tiers, beforeMidnight));
    const { total, refusals } = await hammer({
      prefix,
      now: Date.parse("2026-07-31T12:00:00Z"),
      tiers,
      keys: keys.map((key) => ({ secret: key.key, cost: 1 })),
    });
    expect(total).toBe(400);
    expect(refusals).toEqual({
      "Rate limit shared by all of the owner's API keys exceeded": isolates * perIsolate - 400,
    });
  });

  it("the monthly quota admits exactly its limit, and exactly again in the next month", async () => {
    const prefix = freshPrefix();
    const tiers = { free: { rateLimit: open, quota: { limit: 400, period: "month" as const } } };
    const keyward = await admin(prefix, tiers, beforeMidnight);
    const { ownerId, keys } = await keysOf(keyward);
    const secrets = keys.map((key) => ({ secret: key.key, cost: 1 }));
    const july = await hammer({ prefix, now: beforeMidnight, tiers, keys: secrets });
    expect(july.total).toBe(400);
    expect(july.refusals).toEqual({ "Monthly quota exceeded": isolates * perIsolate - 400 });
    expect((await keyward.keys.usage(ownerId, keys[0]!.id)).quota?.remaining).toBe(0);
    const august = await hammer({ prefix, now: afterMidnight, tiers, keys: secrets });
    expect(august.total).toBe(400);
  });

  it("credits: never overspent, none lost, refilled exactly at the day boundary", async () => {
    const prefix = freshPrefix();
    const tiers = { free: { rateLimit: open } };
    const keyward = await admin(prefix, tiers, beforeMidnight);
    const { ownerId, keys } = await keysOf(keyward);
    await keyward.keys.setLimits(keys[0]!.id, { credits: { remaining: 150 } });
    await keyward.keys.setLimits(keys[1]!.id, { credits: { remaining: 101 } });
    await keyward.keys.setLimits(keys[2]!.id, {
      credits: { remaining: 80, refill: { amount: 40, period: "day" } },
    });
    const costs = [1, 2, 1];
    const secrets = keys.map((key, index) => ({ secret: key.key, cost: costs[index]! }));
    const first = await hammer({ prefix, now: beforeMidnight, tiers, keys: secrets });
    // 200 requests per key: 150 × 1 credit, 50 × 2 credits (1 left over), 80 × 1 credit.
    expect(first.admitted).toEqual([150, 50, 80]);
    const remaining = () =>
      Promise.all(
        keys.map(async (key) => (await keyward.keys.usage(ownerId, key.id)).credits?.remaining),
      );
    expect(await remaining()).toEqual([0, 1, 0]);
    // 40 credits: one isolate may well spend them all before the other's first request.
    const next = await hammer(
      { prefix, now: afterMidnight, tiers, keys: secrets },
      { contended: false },
    );
    expect(next.admitted).toEqual([0, 0, 40]);
  });

  it("a revocation in one isolate is refused by the other on its next request", async () => {
    const prefix = freshPrefix();
    const verify = async (worker: number, secret: string) => {
      const response = await workerd.fetch(`worker${worker}`, "/verify", {
        method: "POST",
        body: JSON.stringify({ prefix, secret }),
      });
      return (await response.json()) as { ok: boolean; detail?: string };
    };
    const keyward = await admin(
      prefix,
      { free: { rateLimit: { limit: 1_000, window: "1m" } } },
      Date.now(),
    );
    const { ownerId, keys } = await keysOf(keyward);
    const [key, other] = keys;
    // Both isolates have verified the key: each holds its record in its cache.
    for (const worker of [0, 1]) {
      expect(await verify(worker, key!.key)).toEqual({ ok: true, name: "k" });
      expect(await verify(worker, key!.key)).toEqual({ ok: true, name: "k" });
    }
    // Revoked through worker 0's namespace, from Node; worker 1 is asked at once.
    await keyward.keys.revoke(ownerId, key!.id);
    expect(await verify(1, key!.key)).toEqual({
      ok: false,
      detail: "API key has been revoked",
      code: "invalid_api_key",
    });
    expect(await verify(1, key!.key)).toEqual({
      ok: false,
      detail: "API key has been revoked",
      code: "invalid_api_key",
    });
    expect(await verify(0, key!.key)).toEqual({
      ok: false,
      detail: "API key has been revoked",
      code: "invalid_api_key",
    });
    // The owner's other key is untouched.
    expect(await verify(1, other!.key)).toEqual({ ok: true, name: "k" });
  });
});
