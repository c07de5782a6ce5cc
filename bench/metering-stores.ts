/**
 * What metering costs a request on the usual deployment: limits on Redis, keys on PostgreSQL (their
 * cache on), the ledger on PostgreSQL (`postgresLedger`). Two instances, one listing `metering()`
 * (no exporter running), one without, measured in alternating rounds of `ROUND_MS` each, so both
 * see the machine's load of the moment. Per side: served requests a second and the median latency
 * of one `verify`, at `concurrency` requests in flight, for one owner (every served request of the
 * window adds to the same ledger row) and for 32 owners; and the ledger's statements per served
 * request (the ledger's client counts them).
 *
 * With `LEDGER=redis`, the ledger is `redisLedger` instead, riding the limits' script (the kernel's
 * counter increments): per side, the Redis commands sent per served request (each side has its own
 * client, which counts what it sends).
 *
 *   cd bench && node --conditions=@keyward/source --import tsx metering-stores.ts
 *   cd bench && LEDGER=redis node --conditions=@keyward/source --import tsx metering-stores.ts
 *   # KEYWARD_BENCH_REDIS_URL (default redis://127.0.0.1:6379),
 *   # KEYWARD_BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/test),
 *   # ROUNDS (default 6), ROUND_MS (default 2000)
 *
 * docs/benchmarks.md ("Metering on Redis and PostgreSQL") has the figures.
 */
import { randomBytes } from "node:crypto";
import { combineStores, createKeyward, type Keyward } from "@keyward/core";
import { metering, postgresLedger, redisLedger } from "@keyward/metering";
import { migrate, postgresStore } from "@keyward/postgres";
import { redisStore } from "@keyward/redis";
import { Redis } from "ioredis";
import pg from "pg";

const redisUrl = process.env.KEYWARD_BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const databaseUrl =
  process.env.KEYWARD_BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const rounds = Number(process.env.ROUNDS ?? 6);
const roundMs = Number(process.env.ROUND_MS ?? 2_000);
/** Far above any answer on a loaded machine: no call is cut by a deadline. */
const timeoutMs = 30_000;

const pool = new pg.Pool({ connectionString: databaseUrl, max: 8 });
const redis = new Redis(redisUrl);
const schema = `bench_meter_${randomBytes(4).toString("hex")}`;
await migrate(pool, { schema });
let ledgerStatements = 0;
const countingClient = {
  query: (text: string, params?: unknown[]) => {
    ledgerStatements++;
    return pool.query(text, params);
  },
};
const onRedis = process.env.LEDGER === "redis";
const postgresLedgerOf = async () => {
  const made = postgresLedger({ client: countingClient, schema, timeoutMs });
  await made.migrate();
  return made;
};
const prefixOf = (side: string) => `kwbench:${schema}:${side}:`;
/** One Redis client per side, counting the commands it sends (each one a round trip, or part of a pipeline). */
const sent = { plain: 0, metered: 0 };
const redisFor = (side: "plain" | "metered") => {
  const client = new Redis(redisUrl);
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((
    command: Parameters<typeof send>[0],
    stream?: Parameters<typeof send>[1],
  ) => {
    sent[side]++;
    return send(command, stream);
  }) as typeof client.sendCommand;
  return client;
};
const clients = { plain: redisFor("plain"), metered: redisFor("metered") };
const ledger = onRedis
  ? redisLedger({ client: clients.metered, prefix: prefixOf("metered"), timeoutMs })
  : await postgresLedgerOf();

const unlimited = { rateLimit: { limit: 1_000_000_000, window: "1m" } };
const instance = (prefix: "plain" | "metered", withMetering: boolean) =>
  createKeyward({
    store: combineStores(
      redisStore({ client: clients[prefix], prefix: prefixOf(prefix), timeoutMs }),
      postgresStore({ client: pool, schema, timeoutMs }),
    ),
    scopes: { "profile:read": "Read" },
    tiers: { pro: unlimited },
    jwt: false,
    logger: false,
    features: withMetering ? [metering({ ledger, exportEvery: false })] : [],
  });
const sides = { without: instance("plain", false), with: instance("metered", true) };

const keysOf = async (keyward: Keyward, owners: number) => {
  const keys: string[] = [];
  for (let owner = 0; owner < owners; owner++) {
    const created = await keyward.keys.create({
      ownerId: `owner-${owner}`,
      accountTier: "pro",
      name: "bench",
      scopes: ["profile:read"],
      tier: "pro",
    });
    keys.push(`Bearer ${created.key}`);
  }
  return keys;
};

const options = { scopes: ["profile:read"], route: "GET /api/v1/profiles/:slug" };

/** One round: served requests a second and the median latency (ms). */
async function round(keyward: Keyward, keys: readonly string[], concurrency: number) {
  const latencies: number[] = [];
  const end = performance.now() + roundMs;
  let index = 0;
  const caller = async () => {
    while (performance.now() < end) {
      const key = keys[index++ % keys.length]!;
      const sent = performance.now();
      const result = await keyward.verify(key, options);
      if (!result.ok) throw new Error(`refused: ${result.error.code}`);
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  latencies.sort((a, b) => a - b);
  return { perSecond: (latencies.length * 1000) / roundMs, p50: latencies[latencies.length >> 1]! };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

for (const [owners, concurrency] of [
  [1, 1],
  [1, 32],
  [32, 32],
] as const) {
  const keys = {
    without: await keysOf(sides.without, owners),
    with: await keysOf(sides.with, owners),
  };
  // Warm the key caches and the JIT.
  for (const side of ["without", "with"] as const)
    await round(sides[side], keys[side], concurrency);
  type Figure = { perSecond: number; p50: number };
  const figures: Record<"with" | "without", Figure[]> = { without: [], with: [] };
  let meteredServed = 0;
  let plainServed = 0;
  const statementsBefore = ledgerStatements;
  const sentBefore = { ...sent };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (["without", "with"] as const) : (["with", "without"] as const);
    for (const side of order) {
      const figure = await round(sides[side], keys[side], concurrency);
      figures[side].push(figure);
      if (side === "with") meteredServed += figure.perSecond * (roundMs / 1000);
      else plainServed += figure.perSecond * (roundMs / 1000);
    }
  }
  const ratios = figures.with.map((f, i) => f.perSecond / figures.without[i]!.perSecond);
  const summary = (side: "with" | "without") =>
    `${median(figures[side].map((f) => f.perSecond)).toFixed(0)}/s, p50 ${median(figures[side].map((f) => f.p50)).toFixed(2)} ms`;
  console.log(
    `${owners} owner(s), ${concurrency} in flight: without ${summary("without")}; with ${summary("with")}; throughput with/without, median of per-round ratios ${((median(ratios) - 1) * 100).toFixed(1)} %; ledger statements per served request ${((ledgerStatements - statementsBefore) / meteredServed).toFixed(3)}; Redis commands per served request without ${((sent.plain - sentBefore.plain) / plainServed).toFixed(3)}, with ${((sent.metered - sentBefore.metered) / meteredServed).toFixed(3)}`,
  );
}

await sides.without.close();
await sides.with.close();
await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
const names = await redis.keys(`kwbench:${schema}:*`);
if (names.length > 0) await redis.del(...names);
await pool.end();
redis.disconnect();
clients.plain.disconnect();
clients.metered.disconnect();
