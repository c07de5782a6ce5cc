/**
 * One Keyward instance with metering in its own Node process, driven over IPC by the process
 * tests: keys on PostgreSQL, rate limits and usage on Redis, the ledger on PostgreSQL, exporting
 * every 200 ms to the local Stripe server (KEYWARD_TEST_STRIPE_PORT) through the `stripe` SDK,
 * whose User-Agent names this instance (`appInfo`), or to a CloudEvents sink
 * (KEYWARD_TEST_OPENMETER_URL, OpenMeter-shaped).
 */
import { combineStores, createKeyward } from "@keyward/core";
import { postgresStore } from "@keyward/postgres";
import { redisStore } from "@keyward/redis";
import IORedis from "ioredis";
import pg from "pg";
import Stripe from "stripe";
import {
  type MeterSink,
  metering,
  openMeter,
  postgresLedger,
  stripeMeters,
} from "../../src/index.js";

export type InstanceCommand =
  | { type: "create"; ownerId: string }
  | { type: "verify"; key: string; count: number; scope: string }
  | { type: "close" };

const name = process.env.KEYWARD_TEST_INSTANCE ?? "instance";
const schema = process.env.KEYWARD_TEST_SCHEMA!;
const pool = new pg.Pool({ connectionString: process.env.KEYWARD_TEST_DATABASE_URL, max: 4 });
pool.on("error", () => {});
const redisClient = new IORedis({ host: "127.0.0.1", port: 6379 });
redisClient.on("error", () => {});

const sink = (): MeterSink => {
  const openMeterUrl = process.env.KEYWARD_TEST_OPENMETER_URL;
  if (openMeterUrl) {
    return openMeter({
      url: openMeterUrl,
      token: "om_test_local",
      meters: { requests: "keyward_api_requests" },
      windowMs: 1000,
      // Names this instance to the test's sink, which may kill it there.
      fetch: (input: RequestInfo | URL, init?: RequestInit) =>
        fetch(input, {
          ...init,
          headers: { ...(init?.headers as Record<string, string>), "x-test-instance": name },
        }),
    });
  }
  const stripe = new Stripe("sk_test_local", {
    host: "127.0.0.1",
    port: Number(process.env.KEYWARD_TEST_STRIPE_PORT),
    protocol: "http",
    maxNetworkRetries: 0,
    appInfo: { name: `keyward-instance-${name}` },
  });
  return stripeMeters({
    stripe,
    meters: { requests: "keyward_api_requests" },
    customer: (ownerId) => ownerId,
  });
};

/**
 * `KEYWARD_TEST_HANG_LEDGER` = `before:<n>` | `after:<n>`: the n-th ledger write of a served request
 * stops this process's request there, before the write is sent or once it is committed, and says so
 * over IPC (with the requests answered so far) for the test to SIGKILL it at that exact point. The
 * ledger is the real PostgreSQL one; only the instant is chosen.
 */
const hangAt = /^(before|after):(\d+)$/.exec(process.env.KEYWARD_TEST_HANG_LEDGER ?? "");
let answered = 0;
let writes = 0;
const durableLedger = postgresLedger({ client: pool, schema, timeoutMs: 30_000 });
const ledger: typeof durableLedger = hangAt
  ? {
      ...durableLedger,
      async add(additions) {
        writes++;
        if (writes !== Number(hangAt[2])) return durableLedger.add(additions);
        if (hangAt[1] === "after") await durableLedger.add(additions);
        process.send!({ id: -1, type: "hung", value: { when: hangAt[1], answered } });
        await new Promise(() => {});
      },
    }
  : durableLedger;

const keyward = createKeyward({
  store: combineStores(
    redisStore({ client: redisClient, prefix: process.env.KEYWARD_TEST_REDIS_PREFIX! }),
    postgresStore({ client: pool, schema, cache: false }),
  ),
  scopes: { "profile:read": "Read", "profile:write": "Write" },
  tiers: { free: { rateLimit: { limit: 40, window: "1h" } } },
  jwt: false,
  features: [
    metering({
      // A deadline far above a loaded test machine's slowest answer: these writes must succeed.
      ledger,
      exporters: [sink()],
      window: "1s",
      settle: "300ms",
      exportEvery: "200ms",
      leaseTtl: "2s",
      backoff: { initial: "100ms", max: "500ms" },
    }),
  ],
  logger: { error: (message) => console.error(`[${name}] ${message}`), warn() {} },
});

async function handle(command: InstanceCommand): Promise<unknown> {
  switch (command.type) {
    case "create": {
      const created = await keyward.keys.create({
        ownerId: command.ownerId,
        accountTier: "free",
        name: "metered",
        scopes: ["profile:read"],
        tier: "free",
      });
      return created.key;
    }
    case "verify": {
      // One at a time: each answer is known before the next request.
      let served = 0;
      for (let call = 0; call < command.count; call++) {
        const result = await keyward.verify(`Bearer ${command.key}`, {
          scopes: [command.scope],
          route: "GET /api/v1/profiles/:slug",
        });
        if (result.ok) {
          served++;
          answered++;
        }
      }
      return served;
    }
    case "close":
      await keyward.close();
      await pool.end();
      setTimeout(() => process.exit(0), 10);
      return null;
  }
}

process.on("message", async ({ id, command }: { id: number; command: InstanceCommand }) => {
  try {
    process.send!({ id, type: "result", value: await handle(command) });
  } catch (error) {
    process.send!({ id, type: "error", message: String((error as Error)?.stack ?? error) });
  }
});
process.send!({ id: 0, type: "result", value: "ready" });
