/**
 * Hard caps across instances: three Keyward instances in this process, each on its own PostgreSQL
 * pool (keys, the credits' durable balance, holds) and its own Redis client (rate limits, usage, the
 * budget's balance), share one key's daily budget. 1,000 concurrent reservations with random
 * settles and 20 % client aborts: spending never passes the cap, the final balance is the budget
 * minus exactly what was settled, and an aborted stream pays exactly for the chunks it sent. Then
 * the same with Redis stalled under one instance (a paused TCP proxy: every reservation it answers
 * 500 is charged nothing, once its voids landed), and with an instance dropped while holding
 * reservations (they come back once their TTL passed, on the shared manual clock). No assertion on
 * time: waits are for outcomes, and the stores' deadlines are far above what a busy machine makes
 * a call wait (below), so only the stalled Redis fails a call. The calls made while it is stalled go
 * to a fourth instance on the same proxy, whose Redis deadline is short: it fails them soon,
 * without making the three wait as long to give up on a Redis that answers late.
 *
 * All of it twice: holds in PostgreSQL (`postgresHoldStore`), and holds in Redis
 * (`redisHoldStore` on each instance's own client and prefix), kept as layers of the owner's limit
 * state; there, nothing of the holds may be left in Redis once they ended.
 */
import { type Clock, combineStores, createKeyward, type Keyward, manualClock } from "@keyward/core";
import { type BudgetsApi, budgets, type Hold, settlingStream } from "@keyward/core/budgets";
import { redisHoldStore, redisStore } from "@keyward/redis";
import IORedis from "ioredis";
import type pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { testCallTimeoutMs } from "../../redis/test/support/local-redis.js";
import { keysUnder } from "../../redis/test/support/scan.js";
import { migrate, postgresHoldStore, postgresStore } from "../src/index.js";
import { describeOnServer, dropSchema, serverPool, uniqueSchema } from "./support/databases.js";
import { type PausableProxy, startPausableProxy } from "./support/pausable-proxy.js";

/**
 * The key's daily budget. Below what the first burst's 1,000 calls would spend if all were
 * admitted (95,501 by their seed), so some are refused by arithmetic, however their reservations
 * and settles overlap: at 100,000, Redis holds settled fast enough that none was (failed once).
 */
const limit = 90_000;
const route = "POST /api/v1/completions";
const scopes = ["completions:write"];

/**
 * The stores' deadlines. With a CPU burner beside this file on a loaded 2-core host, the burst made
 * a Redis step wait up to 11 s and a PostgreSQL call up to 24 s (queued behind the ~330 calls that
 * share its instance's 10 connections), and took up to 77 s in all. With the 500 ms Redis deadline
 * these instances had, about one reservation in five answered 500 ("Redis did not answer within
 * 500 ms"), and the test failed. Four times the tests' deadline (`testCallTimeoutMs`): never
 * reached here but by a store that does not answer.
 */
const callTimeoutMs = 4 * testCallTimeoutMs;
/** The stalling instance's Redis deadline: its calls meet only a stalled Redis, and fail. */
const stalledRedisTimeoutMs = 1_000;

/** A small seeded generator (mulberry32): the same run every time. */
function seeded(seed: number) {
  let state = seed >>> 0;
  return (below: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

/** A hold's own layer under a prefix (`hold-layer.ts`): `layer:{<owner>}:hold:<id>`. */
const holdLayerKey = /^layer:\{[^}]*\}:hold:/;

type Instance = {
  keyward: Keyward & { budgets: BudgetsApi };
  close(): Promise<void>;
};

type HoldsIn = "postgres" | "redis";

const holdsNamed: Record<HoldsIn, string> = {
  postgres: "holds in PostgreSQL",
  redis: "holds in Redis, kept as layers",
};

function describeCap(holdsIn: HoldsIn) {
  describeOnServer(
    `budgets: three instances on PostgreSQL + Redis share one key's cap (${holdsNamed[holdsIn]})`,
    () => {
      const schema = uniqueSchema(`budgets_cap_${holdsIn}`);
      const prefix = `keyward-test:budgets-cap:${holdsIn}:${crypto.randomUUID()}:`;
      const clock = manualClock(Date.parse("2026-12-07T10:00:00Z"));
      let admin: pg.Pool;
      let proxy: PausableProxy;
      let instances: Instance[] = [];
      let header = "";
      let keyId = "";
      /** What every ended hold spent, as each instance's onSettled heard it. */
      let settledTotal = 0;
      /** What the instances logged as failed (a 500's cause, a settle that failed). */
      let failed: string[] = [];

      /** The instance the calls go to while Redis is stalled (on the proxy, as the third). */
      let stalling: Instance;
      /** Reads Redis directly, around the instances and the proxy. */
      let inspector: IORedis;

      const instance = async (
        redisPort: number,
        redisTimeoutMs = callTimeoutMs,
      ): Promise<Instance> => {
        const pool = serverPool({ max: 10 });
        const client = new IORedis({ host: "127.0.0.1", port: redisPort, maxRetriesPerRequest: 1 });
        client.on("error", () => {});
        const postgres = postgresStore({
          client: pool,
          schema,
          invalidation: false,
          timeoutMs: callTimeoutMs,
        });
        const redis = redisStore({
          client,
          prefix,
          time: "caller",
          timeoutMs: redisTimeoutMs,
          circuitBreaker: false,
        });
        // Keys and the credits' durable balance in PostgreSQL; rate limits and usage on Redis.
        const store = combineStores(redis, postgres);
        const keyward = createKeyward({
          store,
          scopes: { "completions:write": "Write completions" },
          tiers: { free: { rateLimit: { limit: 1_000_000, window: "1m" } } },
          clock: clock as Clock,
          jwt: false,
          logger: {
            error: (message, cause) => failed.push(`${message}: ${(cause as Error)?.message}`),
            warn: () => {},
          },
          features: [
            budgets({
              perKey: { limit, period: "day" },
              // Redis holds on the same client and prefix as the limits: kept as layers.
              holds:
                holdsIn === "redis"
                  ? redisHoldStore({ client, prefix })
                  : postgresHoldStore({ client: pool, table: `${schema}.holds` }),
              sweepInterval: false,
              onSettled: (settled) => {
                settledTotal += settled.spent;
              },
            }),
          ],
        }) as Instance["keyward"];
        return {
          keyward,
          async close() {
            await keyward.close();
            client.disconnect();
            await pool.end();
          },
        };
      };

      beforeAll(async () => {
        admin = serverPool();
        await migrate(admin, { schema });
        inspector = new IORedis({ host: "127.0.0.1", port: 6379 });
        proxy = await startPausableProxy("redis://127.0.0.1:6379");
        const proxyPort = Number(new URL(proxy.url).port);
        instances = [await instance(6379), await instance(6379), await instance(proxyPort)];
        stalling = await instance(proxyPort, stalledRedisTimeoutMs);
        const created = await instances[0]!.keyward.keys.create({
          ownerId: "agent-owner",
          accountTier: "free",
          name: "agent",
          scopes,
          tier: "free",
        });
        header = `Bearer ${created.key}`;
        keyId = created.id;
      }, 60_000);

      afterAll(async () => {
        proxy?.resume();
        for (const each of [...instances, stalling]) await each?.close().catch(() => {});
        await proxy?.close();
        const cleaner = new IORedis({ host: "127.0.0.1", port: 6379 });
        const keys = await cleaner.keys(`${prefix}*`);
        if (keys.length > 0) await cleaner.del(...keys);
        cleaner.disconnect();
        inspector?.disconnect();
        await dropSchema(admin, schema);
        await admin.end();
      });

      /** The budget's standing, read through an instance that is up. */
      const standing = async () => (await instances[0]!.keyward.budgets.usage(keyId))!.key!;

      /** With holds in Redis, what of them is there: the holds' layers and the sweep's records. */
      const records = `${prefix}{holds}:record`;
      const holdsInRedis = async () => ({
        layers: (await keysUnder(inspector, prefix)).filter((key) =>
          holdLayerKey.test(key.slice(prefix.length)),
        ).length,
        records: await inspector.hlen(records),
      });

      /**
       * One client call: reserve `cost`, stream `use` chunks of cost 1 through `settlingStream`,
       * the client reading all of them or aborting after `abortAfter`. Answers what it must have
       * spent (and its hold's id).
       */
      const call = async (
        on: Instance,
        cost: number,
        use: number,
        abortAfter: number | undefined,
      ) => {
        const reserved = await on.keyward.budgets.reserve(header, { scopes, route, cost });
        if (!reserved.ok) return { status: reserved.error.status, spent: 0 };
        const hold: Hold = reserved.hold;
        let settled!: () => void;
        const done = new Promise<void>((resolve) => {
          settled = resolve;
        });
        const chunks = (async function* () {
          for (let i = 0; i < use; i++) yield `data: ${i}\n\n`;
        })();
        // A settle that failed is a failure to show, not a call that never ends.
        const body = settlingStream(hold, chunks, {
          onSettled: () => settled(),
          onError: (error) => {
            failed.push(`settling a hold failed: ${(error as Error)?.message}`);
            settled();
          },
        });
        const reader = body.getReader();
        let read = 0;
        for (;;) {
          if (abortAfter !== undefined && read === abortAfter) {
            await reader.cancel("client went away");
            break;
          }
          const next = await reader.read();
          if (next.done) break;
          read++;
        }
        await done;
        return { status: 200, spent: read, holdId: hold.id };
      };

      /** `count` calls spread over `on`, at once, with seeded costs, uses and aborts. */
      const burst = async (on: Instance[], count: number, seed: number) => {
        const random = seeded(seed);
        const calls = Array.from({ length: count }, (_, index) => {
          const cost = 1 + random(400);
          const use = random(cost + 1);
          const abortAfter = random(5) === 0 ? random(use + 1) : undefined;
          return call(on[index % on.length]!, cost, use, abortAfter);
        });
        return Promise.all(calls);
      };

      it("1,000 concurrent reserve/settle calls with 20 % aborts never pass the cap, and the balance is exact", async () => {
        failed = [];
        const results = await burst(instances, 1_000, 40);
        const spent = results.reduce((sum, result) => sum + result.spent, 0);
        const refused = results.filter((result) => result.status === 429).length;
        // The requests asked for about twice the budget and would spend more than it: some were
        // refused, and none passed the cap.
        expect(refused).toBeGreaterThan(0);
        // Any other answer is shown with what the instances logged of its cause.
        const unexpected = results.filter(
          (result) => result.status !== 200 && result.status !== 429,
        );
        expect({ unexpected, failed: [...new Set(failed)] }).toEqual({
          unexpected: [],
          failed: [],
        });
        expect(spent).toBeLessThanOrEqual(limit);
        expect(settledTotal).toBe(spent);
        expect(await standing()).toMatchObject({ held: 0, spent, left: limit - spent });
        // Each hold's layer went with its end; its record goes in the background (forgetLater).
        if (holdsIn === "redis") {
          await expect.poll(holdsInRedis, { timeout: 30_000 }).toEqual({ layers: 0, records: 0 });
        }
      }, 300_000);

      it("with Redis stalled under one instance, no reservation answered 500 is charged", async () => {
        // A new day: the budget is whole again, and this round starts from it.
        clock.set(Date.parse("2026-12-08T10:00:00Z"));
        settledTotal = 0;
        failed = [];
        const before = await burst(instances, 150, 41);
        proxy.pause();
        const [stalled, during] = await Promise.all([
          burst([stalling], 30, 42),
          burst(instances.slice(0, 2), 200, 43),
        ]);
        expect(stalled.every((result) => result.status >= 500)).toBe(true);
        proxy.resume();
        const after = await burst(instances, 150, 44);
        const spent = [...before, ...during, ...after].reduce(
          (sum, result) => sum + result.spent,
          0,
        );
        expect(settledTotal).toBe(spent);
        // The stalled calls reach Redis once it resumes; their voids undo them: wait for that
        // outcome (for up to a minute: a busy machine delays it, nothing else does).
        const waitUntil = performance.now() + 60_000;
        for (;;) {
          const now = await standing();
          if (now.left === limit - spent || performance.now() > waitUntil) {
            expect(now).toMatchObject({ held: 0, left: limit - spent });
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        if (holdsIn === "redis") {
          // A served call's hold leaves nothing: its layer goes with its end, its record after.
          // A call answered 500 leaves no layer (its step's void undid it), and its record stays
          // for the sweep (index.ts, `settleRefused`: ending it at once would race the void), at
          // most one per stalled call; the sweep gives none of them anything back.
          const served = new Set([...before, ...during, ...after].map((result) => result.holdId));
          const left = async () => {
            const ids = await inspector.hkeys(records);
            return {
              layers: (await holdsInRedis()).layers,
              served: ids.filter((id) => served.has(id)).length,
              givenUp: ids.length <= stalled.length,
            };
          };
          await expect
            .poll(left, { timeout: 30_000 })
            .toEqual({ layers: 0, served: 0, givenUp: true });
          clock.advance(10 * 60 * 1000);
          expect(await instances[0]!.keyward.budgets.releaseExpired()).toBe(0);
          await expect.poll(holdsInRedis, { timeout: 30_000 }).toEqual({ layers: 0, records: 0 });
        }
      }, 300_000);

      it("an instance dropped while holding reservations: its holds come back after the TTL", async () => {
        clock.set(Date.parse("2026-12-09T10:00:00Z"));
        settledTotal = 0;
        const victim = instances[1]!;
        const held: Hold[] = [];
        for (let i = 0; i < 20; i++) {
          const reserved = await victim.keyward.budgets.reserve(header, {
            scopes,
            route,
            cost: 1_000,
          });
          if (!reserved.ok) throw new Error("refused");
          held.push(reserved.hold);
        }
        // Killed: its connections closed, its holds never settled.
        await victim.close();
        instances = instances.filter((each) => each !== victim);
        expect(await standing()).toMatchObject({ held: 20_000, left: limit - 20_000 });
        // The dropped instance's holds are layers in Redis, each with its record for the sweep.
        if (holdsIn === "redis") {
          expect(await holdsInRedis()).toEqual({ layers: 20, records: 20 });
        }
        const done = await burst([instances[0]!], 100, 45);
        const spent = done.reduce((sum, result) => sum + result.spent, 0);
        clock.advance(10 * 60 * 1000 - 1);
        expect(await instances[0]!.keyward.budgets.releaseExpired()).toBe(0);
        clock.advance(1);
        expect(await instances[0]!.keyward.budgets.releaseExpired()).toBe(20);
        expect(await standing()).toMatchObject({ held: 0, left: limit - spent, spent });
        if (holdsIn === "redis") {
          await expect.poll(holdsInRedis, { timeout: 30_000 }).toEqual({ layers: 0, records: 0 });
        }
      }, 300_000);
    },
  );
}

describeCap("postgres");
describeCap("redis");
