/**
 * Webhooks across real processes, on the real PostgreSQL and Redis, to a real receiver that checks
 * every signature with the `standardwebhooks` package:
 * - two instances, 1,000 key changes: 1,000 deliveries, none sent by both (outbox on PostgreSQL,
 *   then on Redis);
 * - an instance SIGKILLed between its changes and their delivery (some sent but never recorded,
 *   some never dispatched): a restarted instance delivers every event; duplicates only of what was
 *   sent before the kill, all deduplicated by webhook-id.
 */
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localRedis } from "../../redis/test/support/redis-url.js";
import { migrate } from "../src/index.js";
import {
  describeOnServer,
  dropSchema,
  serverPool,
  sleep,
  uniqueSchema,
} from "./support/databases.js";
import { startWebhookInstance, type WebhookInstance } from "./webhooks/start-webhook-instance.js";
import {
  newWebhookSecret,
  startWebhookReceiver,
  type WebhookReceiver,
} from "./webhooks/webhook-receiver.js";

async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describeOnServer("webhooks across processes", () => {
  const schema = uniqueSchema("hooks");
  const pool = serverPool({ max: 2 });
  const redis = new IORedis({ ...localRedis, lazyConnect: true });
  const redisPrefixes: string[] = [];
  const secret = newWebhookSecret();
  let receiver: WebhookReceiver;
  const started: WebhookInstance[] = [];
  const redisPrefix = (label: string) => {
    const prefix = `kwtest:hooks:${label}:${Date.now().toString(36)}:`;
    redisPrefixes.push(prefix);
    return prefix;
  };
  const start = async (...args: Parameters<typeof startWebhookInstance>) => {
    const instance = startWebhookInstance(...args);
    started.push(instance);
    await instance.ready;
    return instance;
  };

  beforeAll(async () => {
    await redis.connect();
    await migrate(pool, { schema });
    receiver = await startWebhookReceiver(secret);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(started.map((instance) => instance.stop()));
    await receiver?.close();
    await dropSchema(pool, schema);
    await pool.end();
    for (const prefix of redisPrefixes) {
      const names = await redis.keys(`${prefix}*`);
      if (names.length > 0) await redis.del(...names);
    }
    redis.disconnect();
  });

  describe.each(["postgres", "redis"] as const)("outbox on %s", (keysOn) => {
    it("delivers 1,000 key changes made on two instances once each, never by both", async () => {
      const path = `/two-${keysOn}`;
      const prefix = redisPrefix(`two-${keysOn}`);
      const webhooks = {
        endpoints: [{ id: "receiver", url: `${receiver.url}${path}`, secret }],
        timeoutMs: 5_000,
        pollIntervalMs: 200,
      };
      const [a, b] = await Promise.all([
        start("A", { schema, redisPrefix: prefix, keysOn, webhooks }),
        start("B", { schema, redisPrefix: prefix, keysOn, webhooks }),
      ]);
      const startedAt = performance.now();
      const [fromA, fromB] = await Promise.all([
        a.request<string[]>({
          type: "changes",
          ownerId: `owner-a-${keysOn}`,
          count: 500,
          concurrency: 8,
        }),
        b.request<string[]>({
          type: "changes",
          ownerId: `owner-b-${keysOn}`,
          count: 500,
          concurrency: 8,
        }),
      ]);
      expect(fromA.length + fromB.length).toBe(1000);
      await waitUntil(() => receiver.uniqueIds(path).size >= 1000, 120_000, "1,000 deliveries");
      const elapsed = performance.now() - startedAt;
      await sleep(1_000); // anything sent twice would arrive by now
      const received = receiver.received.filter((r) => r.path === path);
      const senders = new Map<string, Set<string | undefined>>();
      for (const r of received) senders.set(r.id, (senders.get(r.id) ?? new Set()).add(r.instance));
      const byBoth = [...senders.values()].filter((instances) => instances.size > 1).length;
      const byA = received.filter((r) => r.instance === "A").length;
      console.info(
        `[webhooks ${keysOn}] 1,000 changes on 2 instances: ${received.length} requests, ${senders.size} unique ids, ` +
          `${byA} sent by A, ${received.length - byA} by B, ${byBoth} sent by both; all delivered ${elapsed.toFixed(0)} ms after the changes began`,
      );
      expect(receiver.rejected).toBe(0);
      expect(senders.size).toBe(1000);
      expect(byBoth).toBe(0);
      expect(received.length).toBe(1000);
      expect(received.every((r) => r.type === "key.created")).toBe(true);
      const delivered = await a.request<{ status: string }[]>({
        type: "deliveries",
        endpointId: "receiver",
      });
      expect(delivered.filter((d) => d.status === "delivered")).toHaveLength(1000);
      await Promise.all([a.stop(), b.stop()]);
    }, 180_000);

    it("delivers every event after a SIGKILL between the changes and their delivery", async () => {
      const path = `/kill-${keysOn}`;
      const prefix = redisPrefix(`kill-${keysOn}`);
      const endpointId = `kill-${keysOn}`;
      const webhooks = {
        endpoints: [{ id: endpointId, url: `${receiver.url}${path}`, secret }],
        // Lease = 2 × 1 s + 5 s: the killed instance's claims are taken over after 7 s.
        timeoutMs: 1_000,
        pollIntervalMs: 100,
      };
      const doomed = await start("doomed", {
        schema,
        redisPrefix: prefix,
        keysOn,
        webhooks,
        hangAfterSend: true,
      });
      const ids = await doomed.request<string[]>({
        type: "changes",
        ownerId: `owner-kill-${keysOn}`,
        count: 60,
        concurrency: 4,
      });
      expect(ids).toHaveLength(60);
      // Its first claims were sent (the receiver has them) but their answers never come back.
      await waitUntil(() => receiver.uniqueIds(path).size > 0, 10_000, "the first sends");
      await sleep(200);
      await doomed.kill();
      const sentBeforeKill = new Set(receiver.uniqueIds(path));
      console.info(
        `[webhooks ${keysOn}] killed with ${sentBeforeKill.size} of 60 events sent, none recorded`,
      );
      expect(sentBeforeKill.size).toBeLessThan(60);

      const restarted = await start("restarted", { schema, redisPrefix: prefix, keysOn, webhooks });
      const restartedAt = performance.now();
      type Listed = { status: string; eventId: string };
      let deliveries: Listed[] = [];
      const deadline = Date.now() + 60_000;
      for (;;) {
        deliveries = await restarted.request<Listed[]>({ type: "deliveries", endpointId });
        if (deliveries.length === 60 && deliveries.every((d) => d.status === "delivered")) break;
        if (Date.now() > deadline)
          throw new Error(`not all delivered: ${JSON.stringify(deliveries.map((d) => d.status))}`);
        await sleep(250);
      }
      const tookMs = performance.now() - restartedAt;
      await sleep(1_000); // anything sent once more would arrive by now
      const received = receiver.received.filter((r) => r.path === path);
      const unique = receiver.uniqueIds(path);
      const duplicates = received.length - unique.size;
      console.info(
        `[webhooks ${keysOn}] after restart: ${received.length} requests, ${unique.size} unique ids, ${duplicates} duplicates (at-least-once), all in ${tookMs.toFixed(0)} ms`,
      );
      expect(receiver.rejected).toBe(0);
      expect(unique.size).toBe(60);
      // The events the killed instance sent without recording it are sent once more (its lease
      // ran out, at-least-once); every other event exactly once.
      const counts = new Map<string, number>();
      for (const r of received) counts.set(r.id, (counts.get(r.id) ?? 0) + 1);
      for (const [id, count] of counts) expect(count, id).toBe(sentBeforeKill.has(id) ? 2 : 1);
      expect(duplicates).toBe(sentBeforeKill.size);
      expect(new Set(deliveries.map((d) => d.eventId))).toEqual(unique);
      // The restarted instance sent everything the receiver got after the kill.
      expect(received.slice(sentBeforeKill.size).every((r) => r.instance === "restarted")).toBe(
        true,
      );
      await restarted.stop();
    }, 120_000);
  });
});
