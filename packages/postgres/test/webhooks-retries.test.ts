/**
 * Retries and dead letters, on each store (memory, PostgreSQL, Redis), with a real receiver that
 * verifies signatures: a receiver answering 500 for a while gets retries whose gaps grow, then the
 * event; one that never recovers ends in the dead-letter state, visible through
 * `keyward.webhooks.deliveries`, and `redeliver` sends it again once it is back. Also: a receiver
 * that hangs is cut off at `timeoutMs`, and a store that fails never throws into the host.
 */
import { createKeyward, type KeywardStore, memoryStore } from "@keyward/core";
import { events } from "@keyward/core/events";
import { memoryRateLimitStore } from "@keyward/core/toolkit";
import { redisStore } from "@keyward/redis";
import { type WebhooksConfig, webhooks } from "@keyward/webhooks";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localRedis } from "../../redis/test/support/redis-url.js";
import { migrate, postgresStore } from "../src/index.js";
import {
  describeOnServer,
  dropSchema,
  serverPool,
  sleep,
  uniqueSchema,
} from "./support/databases.js";
import {
  newWebhookSecret,
  startWebhookReceiver,
  type WebhookReceiver,
} from "./webhooks/webhook-receiver.js";

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

describeOnServer("webhook retries and dead letters", () => {
  const schema = uniqueSchema("hookretry");
  const pool = serverPool({ max: 4 });
  const redis = new IORedis({ ...localRedis, lazyConnect: true });
  const redisPrefix = `kwtest:hookretry:${Date.now().toString(36)}:`;
  const secret = newWebhookSecret();
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    await redis.connect();
    await migrate(pool, { schema });
    receiver = await startWebhookReceiver(secret);
  });
  afterAll(async () => {
    await receiver?.close();
    await dropSchema(pool, schema);
    await pool.end();
    const names = await redis.keys(`${redisPrefix}*`);
    if (names.length > 0) await redis.del(...names);
    redis.disconnect();
  });

  const stores: Record<string, () => KeywardStore> = {
    memory: () => memoryStore(),
    postgres: () => {
      const pg = postgresStore({ client: pool, schema, cache: false });
      return {
        keys: pg.keys,
        events: pg.events,
        outbox: pg.outbox,
        usage: pg.usage,
        rateLimits: memoryRateLimitStore(),
      };
    },
    redis: () => {
      const store = redisStore({
        client: redis,
        prefix: redisPrefix,
        keys: true,
        timeoutMs: 2_000,
      });
      return {
        keys: store.keys!,
        events: store.events!,
        outbox: store.outbox!,
        usage: store.usage,
        rateLimits: store.rateLimits,
      };
    },
  };

  const keywardOn = (store: KeywardStore, config: WebhooksConfig, errors: string[] = []) =>
    createKeyward({
      store,
      scopes: { "profile:read": "Read profiles" },
      tiers: { free: { rateLimit: { limit: 1_000_000, window: "1m" } } },
      jwt: false,
      features: [events({ pruneIntervalMs: false }), webhooks(config)],
      logger: { error: (message) => errors.push(message), warn() {} },
    });
  const createKey = (keyward: ReturnType<typeof keywardOn>, ownerId: string) =>
    keyward.keys.create({
      ownerId,
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });

  describe.each(Object.keys(stores))("%s", (storeName) => {
    it("retries a failing receiver with growing gaps, then delivers", async () => {
      const path = `/flaky-${storeName}`;
      const failures = 4;
      receiver.answer = (request, attempt) =>
        request.path === path && attempt <= failures ? 500 : 204;
      const keyward = keywardOn(stores[storeName]!(), {
        endpoints: [{ id: "flaky", url: `${receiver.url}${path}`, secret }],
        backoff: { initialMs: 200, maxMs: 10_000 },
        maxAttempts: 8,
        pollIntervalMs: 25,
      });
      const key = await createKey(keyward, `owner-flaky-${storeName}`);
      const { data: events } = await keyward.events.list({
        owner: `owner-flaky-${storeName}`,
        keyId: key.id,
      });
      const eventId = events[0]!.id;
      await waitUntil(
        () =>
          receiver.received.some((r) => r.path === path && r.id === eventId && r.status === 204),
        20_000,
        "the delivery after the failures",
      );
      const attempts = receiver.received.filter((r) => r.path === path && r.id === eventId);
      expect(attempts.map((r) => r.status)).toEqual([500, 500, 500, 500, 204]);
      const gaps = attempts.slice(1).map((r, i) => r.at - attempts[i]!.at);
      console.info(
        `[webhooks ${storeName}] retry gaps after 500s: ${gaps.map((g) => g.toFixed(0)).join(", ")} ms`,
      );
      // Waits of 200, 400, 800, 1,600 ms, each jittered to between half and all of it (plus the
      // poll's granularity and a loaded machine's delays): never sooner than half, and growing:
      // each gap is longer than the one two before it, the last several times the first.
      for (const [i, gap] of gaps.entries()) expect(gap).toBeGreaterThanOrEqual(100 * 2 ** i - 5);
      expect(gaps[2]!).toBeGreaterThan(gaps[0]!);
      expect(gaps[3]!).toBeGreaterThan(gaps[1]!);
      expect(gaps[3]!).toBeGreaterThan(gaps[0]! * 2.5);
      // The receiver records its answer before it sends it: wait for the outcome to be stored.
      let data: Awaited<ReturnType<typeof keyward.webhooks.deliveries>>["data"] = [];
      await waitUntil(
        async () => {
          data = (await keyward.webhooks.deliveries({ endpointId: "flaky" })).data;
          return data[0]?.status === "delivered";
        },
        5_000,
        "the delivery to be recorded",
      );
      expect(data).toEqual([
        expect.objectContaining({
          eventId,
          status: "delivered",
          attempts: 5,
          lastResponseStatus: 204,
          lastError: null,
          nextAttemptAt: null,
        }),
      ]);
      await keyward.close();
    }, 30_000);

    it("dead-letters after maxAttempts, lists it, and redelivers it on request", async () => {
      const path = `/down-${storeName}`;
      let down = true;
      receiver.answer = (request) => (request.path === path && down ? 500 : 204);
      const errors: string[] = [];
      const keyward = keywardOn(
        stores[storeName]!(),
        {
          endpoints: [{ id: "down", url: `${receiver.url}${path}`, secret }],
          backoff: { initialMs: 50, maxMs: 100 },
          maxAttempts: 3,
          pollIntervalMs: 25,
        },
        errors,
      );
      const key = await createKey(keyward, `owner-down-${storeName}`);
      let dead: Awaited<ReturnType<typeof keyward.webhooks.deliveries>>["data"] = [];
      await waitUntil(
        async () => {
          dead = (await keyward.webhooks.deliveries({ status: "dead", endpointId: "down" })).data;
          return dead.length > 0;
        },
        10_000,
        "the dead letter",
      );
      expect(dead).toEqual([
        expect.objectContaining({
          endpointId: "down",
          status: "dead",
          attempts: 3,
          lastResponseStatus: 500,
          lastError: "HTTP 500",
          nextAttemptAt: null,
          deliveredAt: null,
        }),
      ]);
      const tries = receiver.received.filter((r) => r.path === path);
      expect(tries).toHaveLength(3);
      // Dead means no more attempts.
      await sleep(400);
      expect(receiver.received.filter((r) => r.path === path)).toHaveLength(3);
      expect(
        errors.some(
          (e) =>
            e.includes(`webhook delivery ${dead[0]!.id}`) && e.includes("dead after 3 attempts"),
        ),
      ).toBe(true);
      // No secret, URL or body in what is logged.
      expect(errors.join("\n")).not.toContain(secret.slice(6));
      expect(errors.join("\n")).not.toContain(receiver.url);
      expect(
        (await keyward.webhooks.deliveries({ status: "pending", endpointId: "down" })).data,
      ).toEqual([]);

      down = false;
      const again = await keyward.webhooks.redeliver(dead[0]!.id);
      expect(again).toMatchObject({ id: dead[0]!.id, status: "pending", attempts: 0 });
      await keyward.webhooks.deliverNow();
      await waitUntil(
        async () =>
          (await keyward.webhooks.deliveries({ status: "delivered", endpointId: "down" })).data
            .length === 1,
        5_000,
        "the redelivery",
      );
      const sent = receiver.received.filter((r) => r.path === path);
      expect(sent.map((r) => r.status)).toEqual([500, 500, 500, 204]);
      expect(new Set(sent.map((r) => r.id)).size).toBe(1);
      expect(await keyward.webhooks.redeliver(`whd_${"0".repeat(24)}_down`)).toBeNull();
      expect(key.id).toMatch(/^key_/);
      await keyward.close();
    }, 30_000);

    it("cuts a hanging receiver off at timeoutMs and retries it", async () => {
      const path = `/hang-${storeName}`;
      // Never answers: the request stays open until the sender gives up.
      receiver.answer = (request) => (request.path === path ? 0 : 204);
      const keyward = keywardOn(stores[storeName]!(), {
        endpoints: [{ id: "hang", url: `${receiver.url}${path}`, secret }],
        timeoutMs: 300,
        backoff: { initialMs: 60_000 },
        pollIntervalMs: false,
      });
      await createKey(keyward, `owner-hang-${storeName}`);
      const summary = await keyward.webhooks.deliverNow();
      // pollIntervalMs: false: nothing is sent until deliverNow, which sends it and gives up at
      // timeoutMs (lastError below; how long it took is webhooks-retries.timing.test.ts's).
      expect(summary).toEqual({ dispatched: 1, retrying: 1, delivered: 0, dead: 0 });
      expect(receiver.received.filter((r) => r.path === path)).toHaveLength(1);
      const [delivery] = (await keyward.webhooks.deliveries({ endpointId: "hang" })).data;
      expect(delivery).toMatchObject({ status: "pending", attempts: 1, lastResponseStatus: null });
      expect(delivery?.lastError).toBe("no answer within 300 ms");
      await keyward.close();
    }, 15_000);
  });
});
