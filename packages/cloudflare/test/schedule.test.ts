/**
 * Keyward's periodic work on Workers, from the schedule object's alarm (`keywardSchedule`) in
 * workerd, with no Keyward running in between: the test sets the store up from Node (keys made
 * 100 days ago on a manual clock, 100 days of old usage), starts the schedule, and waits for the
 * alarm to fire on its own. Its run prunes the old usage in batches (totals kept), disables the
 * key left unused past `disableAfterUnused`, and delivers that `key.disabled` as a webhook to a
 * receiver the test answers in Node; the alarm then fires again. The same work from a Cron Trigger
 * instead (`runBackgroundWork` in the test Worker's `scheduled` handler), fired through Miniflare.
 */
import { createKeyward, manualClock } from "@keyward/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BackgroundRun,
  cloudflareStore,
  type ObjectNamespace,
  readKeywardSchedule,
  type ScheduleState,
  startKeywardSchedule,
} from "../src/index.js";
import { startWorkerd, type Workerd } from "./support/miniflare.js";
import { cronPrefix, schedulePrefix } from "./support/test-schedule.js";

const dayMs = 24 * 60 * 60 * 1000;
const received: { type: string; keyId: string }[] = [];
let workerd: Workerd;

beforeAll(async () => {
  workerd = await startWorkerd({
    async receiver(request) {
      const body = (await request.json()) as { type: string; keyId: string };
      received.push({ type: body.type, keyId: body.keyId });
      return new Response(null, { status: 204 });
    },
  });
}, 60_000);
afterAll(async () => {
  await workerd?.dispose();
});

const utcDay = (at: number) => new Date(at).toISOString().slice(0, 10);

/** Polls the schedule until `ready` holds of it, for up to 30 s (the alarm fires every second). */
async function scheduleWhen(
  namespace: ObjectNamespace,
  ready: (state: ScheduleState) => boolean,
): Promise<ScheduleState> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const state = await readKeywardSchedule(namespace);
    if (ready(state)) return state;
    if (Date.now() > deadline)
      throw new Error(`the schedule never got there: ${JSON.stringify(state)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The store under `prefix` as a run finds it: a key made 100 days ago and never used since, a
 * fresh one, and 11 keys' counts on each of the 100 days before the retention (1,100 key-days,
 * three batches) beside today's.
 */
async function seedStore(prefix: string) {
  const namespace = await workerd.namespace();
  const store = cloudflareStore({ namespace, prefix: prefix });
  const now = Date.now();
  const adminAt = (at: number) =>
    createKeyward({
      store,
      scopes: { "profile:read": "Read" },
      tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
      clock: manualClock(at),
      jwt: false,
      logger: false,
    });
  const stale = await adminAt(now - 100 * dayMs).keys.create({
    ownerId: "u1",
    accountTier: "free",
    name: "stale",
    scopes: ["profile:read"],
    tier: "free",
  });
  const fresh = await adminAt(now).keys.create({
    ownerId: "u1",
    accountTier: "free",
    name: "fresh",
    scopes: ["profile:read"],
    tier: "free",
  });
  // 11 keys' counts on each of the 100 days before the retention: 1,100 key-days, three batches.
  const oldDays = Array.from({ length: 100 }, (_, index) => utcDay(now - (40 + index) * dayMs));
  const usageKeys = Array.from({ length: 11 }, (_, index) => `usage_${index}`);
  const increment = (keyId: string, day: string) => ({
    keyId,
    method: "GET",
    route: "/p",
    day,
    count: 2,
    lastUsedAt: Date.parse(`${day}T12:00:00Z`),
  });
  await store.usage.record(
    usageKeys.flatMap((keyId) => [
      ...oldDays.map((day) => increment(keyId, day)),
      increment(keyId, utcDay(now)),
    ]),
  );

  return { store, now, stale, fresh };
}

describe("the schedule object's alarm", () => {
  it("prunes usage in batches, disables unused keys and delivers their webhooks, run after run", async () => {
    const { store, now, stale, fresh } = await seedStore(schedulePrefix);
    const schedules = (await workerd.miniflare.getDurableObjectNamespace(
      "KEYWARD_SCHEDULE",
    )) as unknown as ObjectNamespace;
    expect((await readKeywardSchedule(schedules)).nextAt).toBeNull();
    const started = await startKeywardSchedule(schedules);
    expect(started).toMatchObject({ runs: 0, last: null });
    expect(started.nextAt).toBeGreaterThan(now);

    const first = (await scheduleWhen(schedules, (state) => state.runs >= 1)).last as BackgroundRun;
    expect(first.tasks["usage.prune"]).toEqual({ done: { pruned: 1_100 } });
    expect(first.tasks["permissions.scanInactive"]).toEqual({ done: { disabled: 1, warned: 0 } });
    expect(first.tasks["events.prune"]).toEqual({ done: { pruned: 0 } });
    expect(first.tasks["events.scanExpiring"]).toEqual({ done: { written: 0 } });
    expect(first.tasks["webhooks.deliverNow"]).toMatchObject({ done: { delivered: 1 } });
    expect(Object.keys(first.tasks)).not.toContain("metering.exportNow");

    expect(received).toEqual([{ type: "key.disabled", keyId: stale.id }]);
    expect((await store.keys.findById(stale.id))?.disabledAt).not.toBeNull();
    const freshRecord = await store.keys.findById(fresh.id);
    expect(freshRecord?.name).toBe("fresh");
    expect(freshRecord?.disabledAt ?? null).toBeNull();
    const usage = await store.usage.read("usage_3");
    expect(usage.totalRequests).toBe(202);
    expect(usage.daily).toEqual([{ date: utcDay(now), count: 2 }]);

    // The alarm set its own next run: it fires again, with nothing left to do.
    const second = (await scheduleWhen(schedules, (state) => state.runs >= 2))
      .last as BackgroundRun;
    expect(second.tasks["usage.prune"]).toEqual({ done: { pruned: 0 } });
    expect(second.tasks["permissions.scanInactive"]).toEqual({ done: { disabled: 0, warned: 0 } });
    expect(received).toHaveLength(1);
  }, 60_000);
});

describe("a Cron Trigger instead: runBackgroundWork", () => {
  it("runs the same work from the Worker's scheduled handler", async () => {
    const { store, stale, fresh } = await seedStore(cronPrefix);
    // Miniflare's Fetcher has `scheduled` at run time; its types leave it out.
    const worker = (await workerd.miniflare.getWorker("worker0")) as unknown as {
      scheduled(options: { cron: string }): Promise<{ outcome: string }>;
    };
    const fired = await worker.scheduled({ cron: "*/5 * * * *" });
    expect(fired.outcome).toBe("ok");

    // The run is the handler's waitUntil: read once it has finished.
    const deadline = Date.now() + 30_000;
    let run: BackgroundRun | null = null;
    while (run === null) {
      const answer = await workerd.fetch("worker0", "/cron/last");
      run = (await answer.json()) as BackgroundRun | null;
      if (run !== null) break;
      if (Date.now() > deadline) throw new Error("the Cron Trigger's run never finished");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(run.tasks["usage.prune"]).toEqual({ done: { pruned: 1_100 } });
    expect(run.tasks["permissions.scanInactive"]).toEqual({ done: { disabled: 1, warned: 0 } });
    expect(run.tasks["webhooks.deliverNow"]).toMatchObject({ done: { delivered: 1 } });
    expect(run.finishedAt).toBeGreaterThanOrEqual(run.startedAt);

    expect(received.filter((each) => each.keyId === stale.id)).toEqual([
      { type: "key.disabled", keyId: stale.id },
    ]);
    expect((await store.keys.findById(stale.id))?.disabledAt).not.toBeNull();
    expect((await store.keys.findById(fresh.id))?.disabledAt ?? null).toBeNull();
    expect((await store.usage.read("usage_3")).totalRequests).toBe(202);
  }, 60_000);
});
