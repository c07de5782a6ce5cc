/**
 * The usage storage curve: 1,000 keys used on two endpoints every day for 120 simulated days, on a
 * manual clock, with and without `usage.retainDays: 30`. With retention, `keyward.usage.prune()`
 * runs once a simulated day (what the hourly timer does in a real deployment). Every 5 days the
 * storage the usage occupies is measured: the usage table (PostgreSQL, after the VACUUM autovacuum
 * would run), the usage hashes' MEMORY USAGE (Redis), the V8 heap after a GC (memory).
 */
import { createKeyward, manualClock, type UsageIncrement } from "@keyward/core";
import { round } from "./percentiles.js";
import { heapUsed, openMemory, openPostgres, openRedis, type StoreKind } from "./scale-stores.js";

const keys = 1_000;
const days = 120;
const retainDays = 30;
const every = 5;
const dayMs = 86_400_000;
const start = Date.UTC(2026, 0, 1, 12);

export interface CurvePoint {
  day: number;
  bytes: number;
}

export interface RetentionCurve {
  store: StoreKind;
  keys: number;
  retainDays: number | null;
  points: CurvePoint[];
  /** Total requests of one key read back at the end: must be the same with and without retention. */
  totalRequestsOfOneKey: number;
  pruneSecondsPerDay: number | null;
}

export async function retentionCurves(
  kinds: readonly StoreKind[],
  options: { databaseUrl: string; redisUrl: string; log(message: string): void },
): Promise<RetentionCurve[]> {
  const curves: RetentionCurve[] = [];
  for (const kind of kinds) {
    for (const retain of [null, retainDays]) {
      options.log(`curve: ${kind}, retainDays ${retain ?? "off"}`);
      curves.push(await curve(kind, retain, options));
    }
  }
  return curves;
}

async function curve(
  kind: StoreKind,
  retain: number | null,
  options: { databaseUrl: string; redisUrl: string },
): Promise<RetentionCurve> {
  const tag = `curve_${retain ?? "off"}_${process.pid}`;
  const scale =
    kind === "memory"
      ? await openMemory()
      : kind === "postgres"
        ? await openPostgres(options.databaseUrl, tag)
        : await openRedis(options.redisUrl, tag);
  const clock = manualClock(start);
  const keyward = createKeyward({
    store: scale.store,
    scopes: { "profile:read": "Read profiles" },
    tiers: { free: { rateLimit: { limit: 1_000, window: "1m" } } },
    jwt: false,
    logger: false,
    clock,
    ...(retain === null ? {} : { usage: { retainDays: retain, pruneIntervalMs: false as const } }),
  });
  const ids = Array.from({ length: keys }, (_, i) => `curve_${i}`);
  const baseline = await scale.usageBytes(ids);
  const points: CurvePoint[] = [];
  let pruneSeconds = 0;
  for (let day = 0; day < days; day++) {
    const now = start + day * dayMs;
    clock.set(now);
    const date = new Date(now).toISOString().slice(0, 10);
    // What Keyward's recorder would flush for the day: each key on two endpoints.
    const batch: UsageIncrement[] = ids.flatMap((keyId) => [
      {
        keyId,
        method: "GET",
        route: "/api/v1/profiles/:slug",
        day: date,
        count: 3,
        lastUsedAt: now,
      },
      { keyId, method: "POST", route: "/api/v1/profiles", day: date, count: 1, lastUsedAt: now },
    ]);
    await scale.store.usage.record(batch);
    if (retain !== null) {
      const started = performance.now();
      await keyward.usage.prune();
      pruneSeconds += (performance.now() - started) / 1000;
    }
    if ((day + 1) % every === 0)
      points.push({ day: day + 1, bytes: (await scale.usageBytes(ids)) - baseline });
  }
  const totalRequestsOfOneKey = (await scale.store.usage.read(ids[0]!)).totalRequests;
  await keyward.close();
  await scale.close();
  void heapUsed;
  return {
    store: kind,
    keys,
    retainDays: retain,
    points,
    totalRequestsOfOneKey,
    pruneSecondsPerDay: retain === null ? null : round(pruneSeconds / days),
  };
}
