/**
 * Exactly once across real processes: two instances on the real PostgreSQL (keys, the ledger) and
 * Redis (rate limits, usage), exporting to the local Stripe server through the `stripe` SDK. The
 * instance holding the export lease is SIGKILLed while Stripe holds an event it sent and before the
 * reply reaches it (its other events of the batch taken and answered, their acknowledgement not
 * recorded), then restarted. Per customer, Stripe's total equals the served count exactly: refused
 * requests (rate limited, wrong scope) are never billed, and every repeat was dropped by identifier.
 * The same with an OpenMeter-shaped CloudEvents sink that deduplicates on source + id.
 */

import { randomBytes } from "node:crypto";
import { migrate } from "@keyward/postgres";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresLedger } from "../src/index.js";
import { type Instance, startInstance } from "./processes/start-instance.js";
import { localOpenMeter } from "./support/local-openmeter.js";
import { localStripe } from "./support/local-stripe.js";
import { dropSchema, testPool, uniqueSchema } from "./support/postgres.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A sink under test: where instances export, what it holds per customer, what it dropped. */
interface SinkUnderTest {
  ledgerName: string;
  env: { stripePort?: number; openMeterUrl?: string };
  totals(): Record<string, number>;
  identifiers(): string[];
  duplicates(): number;
  close(): Promise<void>;
}

type Taken = (instance: string) => Promise<void>;

const sinks: [string, (taken: Taken) => Promise<SinkUnderTest>][] = [
  [
    "Stripe meters (stripe SDK, local server)",
    async (taken) => {
      const server = await localStripe({
        secretKey: "sk_test_local",
        meters: ["keyward_api_requests"],
        taken: (userAgent) => taken(/keyward-instance-(\w+)/.exec(userAgent)?.[1] ?? ""),
      });
      return {
        ledgerName: "stripe",
        env: { stripePort: server.port },
        totals: () => Object.fromEntries(server.totals("keyward_api_requests")),
        identifiers: () => server.events.map((event) => event.identifier),
        duplicates: () => server.duplicates,
        close: () => server.close(),
      };
    },
  ],
  [
    "OpenMeter (CloudEvents, deduplicated on source + id)",
    async (taken) => {
      const sink = await localOpenMeter({ token: "om_test_local", taken });
      return {
        ledgerName: "openmeter",
        env: { openMeterUrl: sink.url },
        totals: () => Object.fromEntries(sink.totals("keyward_api_requests")),
        identifiers: () => sink.events.map((event) => `${event.source}/${event.id}`),
        duplicates: () => sink.duplicates,
        close: () => sink.close(),
      };
    },
  ],
];

describe.each(sinks)("metering across processes (PostgreSQL + Redis) to %s", (_, makeSink) => {
  const pool = testPool(2);
  const redis = new IORedis({ host: "127.0.0.1", port: 6379, lazyConnect: true });
  const schema = uniqueSchema("proc");
  const redisPrefix = `kwtest:meter:${randomBytes(4).toString("hex")}:`;
  const started: Instance[] = [];
  let server: SinkUnderTest;
  let killWhenTaken: (() => Promise<void>) | undefined;

  const start = async (
    name: string,
    env: Omit<Parameters<typeof startInstance>[1], "schema" | "redisPrefix">,
  ) => {
    const instance = startInstance(name, { schema, redisPrefix, ...env });
    started.push(instance);
    await instance.ready;
    return instance;
  };

  beforeAll(async () => {
    await redis.connect();
    await migrate(pool, { schema });
    await postgresLedger({ client: pool, schema }).migrate();
    // The doomed instance dies with the sink holding its events, before the reply is written.
    server = await makeSink(async (instance) => {
      if (killWhenTaken === undefined || instance !== "doomed") return;
      const kill = killWhenTaken;
      killWhenTaken = undefined;
      await kill();
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(started.map((instance) => instance.stop()));
    await server?.close();
    await dropSchema(pool, schema);
    await pool.end();
    const names = await redis.keys(`${redisPrefix}*`);
    if (names.length > 0) await redis.del(...names);
    redis.disconnect();
  });

  it("a SIGKILL mid-export and a restart: each customer billed its served requests exactly once", async () => {
    const doomed = await start("doomed", server.env);
    // The doomed instance takes the export lease first.
    await waitUntil(
      async () =>
        (await pool.query(`SELECT 1 FROM "${schema}".keyward_meter_leases`)).rows.length === 1,
      10_000,
      "the doomed instance's lease",
    );
    const other = await start("other", server.env);
    const owners = Array.from({ length: 8 }, (_, index) => `owner-${index}`);
    const keys = new Map<string, string>();
    for (const ownerId of owners)
      keys.set(ownerId, await doomed.request<string>({ type: "create", ownerId }));

    // Tier limit 40 an hour per key: owner-0 asks 50 (about 10 refused); owner-1 asks 5 with a scope its
    // key lacks (all refused); the rest are split over both instances.
    const served = new Map<string, number>(owners.map((ownerId) => [ownerId, 0]));
    const serve = async (
      instance: Instance,
      ownerId: string,
      count: number,
      scope = "profile:read",
    ) => {
      const got = await instance.request<number>({
        type: "verify",
        key: keys.get(ownerId)!,
        count,
        scope,
      });
      served.set(ownerId, served.get(ownerId)! + got);
    };
    await Promise.all([
      serve(doomed, "owner-0", 50),
      serve(other, "owner-1", 5, "profile:write"),
      ...owners
        .slice(2)
        .flatMap((ownerId, index) => [
          serve(doomed, ownerId, 6 + index),
          serve(other, ownerId, 3 + index),
        ]),
    ]);
    // The tier's limit refused some of owner-0's (how many depends on the limiter's window).
    expect(served.get("owner-0")).toBeGreaterThanOrEqual(39);
    expect(served.get("owner-0")).toBeLessThanOrEqual(40);
    expect(served.get("owner-1")).toBe(0);

    // Every request is answered: the next event Stripe takes from the doomed instance kills it.
    const killed = new Promise<void>((resolve) => {
      killWhenTaken = async () => {
        await doomed.kill();
        resolve();
      };
    });
    await killed;
    const heldAtKill = server.identifiers().length;
    const reborn = await start("reborn", server.env);

    const expected = Object.fromEntries([...served].filter(([, count]) => count > 0));
    const billed = () => server.totals();
    await waitUntil(
      () => JSON.stringify(sorted(billed())) === JSON.stringify(sorted(expected)),
      30_000,
      `the sink to hold ${JSON.stringify(expected)} (has ${JSON.stringify(billed())})`,
    );
    // Nothing is pending any more, so nothing else may arrive: check a few export runs later.
    const ledger = postgresLedger({ client: pool, schema });
    await waitUntil(
      async () =>
        (
          await ledger.due({
            sink: server.ledgerName,
            meters: ["requests"],
            startedBefore: Number.MAX_SAFE_INTEGER,
            limit: 10,
          })
        ).length === 0,
      10_000,
      "an empty backlog",
    );
    await sleep(600);
    expect(sorted(billed())).toEqual(sorted(expected));
    const identifiers = server.identifiers();
    expect(new Set(identifiers).size).toBe(identifiers.length);
    // What the sink held when the doomed instance died was sent again and dropped as a repeat.
    expect(server.duplicates()).toBeGreaterThanOrEqual(1);
    // Nothing was set aside: every window reached the sink.
    expect(await ledger.adjustments()).toEqual([]);
    console.info(
      `[metering processes] ${identifiers.length} events, ${heldAtKill} held at the kill, ${server.duplicates()} repeats dropped by identifier`,
    );
    await Promise.all([other.stop(), reborn.stop()]);
  }, 120_000);
});

function sorted(record: Record<string, number>): [string, number][] {
  return Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
}
