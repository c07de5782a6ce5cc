/**
 * Scale benchmark: seeded datasets of 10^3, 10^5 and 10^6 keys on memory, PostgreSQL and Redis.
 * For each store and size: verify p50/p99 with a cold and a warm cache, create, listing an owner
 * with 10,000 keys (whole and paginated), usage flush throughput, and bytes per key and per
 * key-day of usage. Then the usage storage curve over simulated days with and without
 * `usage.retainDays` (retention-curve.ts). Writes JSON; chart.ts draws the SVGs.
 *
 * Environment: SCALE_SIZES (default 1000,100000,1000000), SCALE_STORES (memory,postgres,redis),
 * SCALE_CURVE (1: also the retention curve; default 1), SCALE_OUT (default scale/results.json),
 * KEYWARD_BENCH_DATABASE_URL, KEYWARD_BENCH_REDIS_URL.
 *
 * @example
 * npx pnpm@10 --filter @keyward/bench bench:scale
 */
import { execSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { createKeyward, type Keyward, type KeywardStore, type UsageIncrement } from "@keyward/core";
import { type LatencySummary, round, summarise, timeEach } from "./percentiles.js";
import { ratios } from "./ratios.js";
import { retentionCurves } from "./retention-curve.js";
import {
  heapUsed,
  openMemory,
  openPostgres,
  openRedis,
  type ScaleStore,
  type StoreKind,
} from "./scale-stores.js";

const databaseUrl =
  process.env.KEYWARD_BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/kw_scale";
const redisUrl = process.env.KEYWARD_BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const sizes = (process.env.SCALE_SIZES ?? "1000,100000,1000000").split(",").map(Number);
const kinds = (process.env.SCALE_STORES ?? "memory,postgres,redis").split(",") as StoreKind[];
const out = process.env.SCALE_OUT ?? "scale/results.json";

const scopes = { "profile:read": "Read profiles" };
const tiers = { free: { rateLimit: { limit: 1_000_000_000, window: "1m" } } };
const verifyOptions = { scopes: ["profile:read"], route: "GET /api/v1/profiles/:slug" };
const bigOwner = "big-owner";
/** Keys created through Keyward (their secrets are what the verify figures use). */
const sampleSize = (n: number) => Math.min(1_000, n / 2);
const bigOwnerSize = (n: number) => Math.min(10_000, n - sampleSize(n));
/** Keys and days whose usage is written to measure bytes per key-day. */
const usageKeys = (n: number) => Math.min(10_000, n);
const usageDays = 30;

interface SizeResult {
  store: StoreKind;
  keys: number;
  seedSeconds: number;
  seedKeysPerSecond: number;
  verifyCold: LatencySummary;
  verifyWarm: LatencySummary;
  create: LatencySummary;
  listOwner: {
    keys: number;
    whole: LatencySummary;
    firstPage: LatencySummary;
    allPages: LatencySummary;
    pageSize: number;
  };
  usageFlush: { batch: number; batches: number; incrementsPerSecond: number };
  bytesPerKey: number;
  bytesPerKeyDay: number;
  loadAverage: number[];
}

const log = (message: string) =>
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${message}`);

/** Without lifecycle(), no per-owner limit: the run makes far more than 100 keys per owner. */
function keywardOn(store: KeywardStore): Keyward {
  return createKeyward({ store, scopes, tiers, jwt: false, logger: false });
}

async function open(kind: StoreKind, tag: string): Promise<ScaleStore> {
  if (kind === "memory") return openMemory();
  if (kind === "postgres") return openPostgres(databaseUrl, tag);
  return openRedis(redisUrl, tag);
}

async function measure(kind: StoreKind, n: number): Promise<SizeResult> {
  const tag = `${n}_${process.pid}`;
  const heapBefore = heapUsed();
  const scale = await open(kind, tag);
  const keyBytesBefore = kind === "postgres" ? 0 : heapUsed();
  const keyward = keywardOn(scale.store);
  const create = (ownerId: string) =>
    keyward.keys.create({
      ownerId,
      accountTier: "free",
      name: "scale",
      scopes: ["profile:read"],
      tier: "free",
    });
  const template = await scale.store.keys.findById((await create("template")).id);
  if (!template) throw new Error("the template key was not stored");

  const samples = sampleSize(n);
  const big = bigOwnerSize(n);
  const seeded = n - samples;
  const owners = Math.max(1, Math.floor((seeded - big) / 10));
  log(`${kind} ${n}: seeding ${seeded} records (${big} for one owner)`);
  const seedStart = performance.now();
  await scale.seed(template, 0, seeded, (i) => (i < big ? bigOwner : `owner_${i % owners}`));
  const seedSeconds = (performance.now() - seedStart) / 1000;

  log(`${kind} ${n}: creating ${samples} keys through Keyward`);
  const secrets: string[] = [];
  const createSamples = await timeEach(
    Array.from({ length: samples }, (_, i) => `sample_${i % 100}`),
    async (owner) => secrets.push((await create(owner)).key),
  );
  const headers = secrets.map((key) => `Bearer ${key}`);
  const bytesAfterKeys =
    kind === "postgres"
      ? await scale.keyBytes()
      : kind === "redis"
        ? await scale.keyBytes()
        : heapUsed();
  const bytesPerKey =
    kind === "redis"
      ? bytesAfterKeys
      : (bytesAfterKeys - (kind === "memory" ? keyBytesBefore : 0)) / (n + 1);

  log(`${kind} ${n}: verify, cold then warm`);
  const cold = keywardOn(await scale.coldInstance());
  const check = await cold.verify(headers[0]!, verifyOptions);
  if (!check.ok) throw new Error(`a sample key was refused: ${check.error.detail}`);
  const verifyCold = await timeEach(headers.slice(1), (header) =>
    cold.verify(header, verifyOptions),
  );
  const verifyWarm = await timeEach(headers.slice(1), (header) =>
    cold.verify(header, verifyOptions),
  );
  await cold.close();

  log(`${kind} ${n}: list an owner with ${big} keys`);
  const repeat = (times: number) => Array.from({ length: times }, (_, i) => i);
  // Fewer repeats on Redis: the whole listing there is one script that reads all 10,000 records
  // while it holds Redis (the machine is shared).
  const whole = await timeEach(
    repeat(kind === "memory" ? 10 : kind === "redis" ? 3 : 5),
    async () => {
      const listed = await keyward.keys.list(bigOwner);
      if (listed.length !== big) throw new Error(`listed ${listed.length} of ${big}`);
    },
  );
  const pageSize = 100;
  const owner = { type: "user", id: bigOwner } as const;
  const firstPage = await timeEach(repeat(50), () =>
    scale.store.keys.listByOwner(owner, { limit: pageSize + 1 }),
  );
  // PostgreSQL and Redis read a page off an index (Redis: the owner's sorted set by createdAt);
  // the memory store sorts the owner's keys for each page.
  const allPages = await timeEach(repeat(3), async () => {
    let after: { createdAt: number; id: string } | undefined;
    let seen = 0;
    for (;;) {
      const page = await scale.store.keys.listByOwner(owner, {
        limit: pageSize + 1,
        ...(after ? { after } : {}),
      });
      const kept = page.slice(0, pageSize);
      seen += kept.length;
      if (page.length <= pageSize) break;
      const last = kept.at(-1)!;
      after = { createdAt: last.createdAt, id: last.id };
    }
    if (seen !== big) throw new Error(`paged through ${seen} of ${big}`);
  });

  log(`${kind} ${n}: usage flush and bytes per key-day`);
  const usageIds = Array.from({ length: usageKeys(n) }, (_, i) =>
    i < seeded ? `seed_${i}` : `other_${i}`,
  );
  const dayOf = (d: number) =>
    new Date(Date.UTC(2026, 0, 1) + d * 86_400_000).toISOString().slice(0, 10);
  const increments = (day: number): UsageIncrement[] =>
    usageIds.flatMap((keyId) => [
      {
        keyId,
        method: "GET",
        route: "/api/v1/profiles/:slug",
        day: dayOf(day),
        count: 3,
        lastUsedAt: Date.UTC(2026, 0, 1) + day * 86_400_000,
      },
      {
        keyId,
        method: "POST",
        route: "/api/v1/profiles",
        day: dayOf(day),
        count: 1,
        lastUsedAt: Date.UTC(2026, 0, 1) + day * 86_400_000,
      },
    ]);
  const usageBefore = await scale.usageBytes(usageIds.slice(0, 300));
  let flushed = 0;
  const flushStart = performance.now();
  for (let day = 0; day < usageDays; day++) {
    const batch = increments(day);
    // Keyward's recorder hands the store batches of up to 10,000 entries (`maxBuffered`).
    for (let i = 0; i < batch.length; i += 10_000) {
      await scale.store.usage.record(batch.slice(i, i + 10_000));
      flushed += Math.min(10_000, batch.length - i);
    }
  }
  const flushSeconds = (performance.now() - flushStart) / 1000;
  const usageAfter = await scale.usageBytes(usageIds.slice(0, 300));
  const keyDays =
    kind === "redis" ? Math.min(300, usageIds.length) * usageDays : usageIds.length * usageDays;

  await keyward.close();
  await scale.close();
  const result: SizeResult = {
    store: kind,
    keys: n,
    seedSeconds: round(seedSeconds),
    seedKeysPerSecond: round(seeded / seedSeconds),
    verifyCold: summarise(verifyCold),
    verifyWarm: summarise(verifyWarm),
    create: summarise(createSamples),
    listOwner: {
      keys: big,
      whole: summarise(whole),
      firstPage: summarise(firstPage),
      allPages: summarise(allPages),
      pageSize,
    },
    usageFlush: {
      batch: 10_000,
      batches: Math.ceil(flushed / 10_000),
      incrementsPerSecond: round(flushed / flushSeconds),
    },
    bytesPerKey: round(bytesPerKey),
    bytesPerKeyDay: round((usageAfter - usageBefore) / keyDays),
    loadAverage: loadavg().map((value) => round(value, 3)),
  };
  void heapBefore;
  log(`${kind} ${n}: ${JSON.stringify(result)}`);
  return result;
}

const results: SizeResult[] = [];
for (const n of sizes) {
  for (const kind of kinds) results.push(await measure(kind, n));
}
const curves =
  process.env.SCALE_CURVE === "0"
    ? []
    : await retentionCurves(kinds, { databaseUrl, redisUrl, log });
const report = {
  date: new Date().toISOString(),
  commit: execSync("git rev-parse --short HEAD").toString().trim(),
  node: process.version,
  machine: {
    cpus: (await import("node:os")).cpus().length,
    model: (await import("node:os")).cpus()[0]?.model,
  },
  settings: {
    sizes,
    stores: kinds,
    sampleKeys: "min(1000, n/2)",
    bigOwner: "min(10000, n - samples)",
    usageKeys: "min(10000, n)",
    usageDays,
  },
  results,
  ratios: ratios(results),
  curves,
  loadAverageAtEnd: loadavg().map((value) => round(value, 3)),
};
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
log(`wrote ${out}`);
process.exit(0);
