/**
 * One Keyward instance with webhooks in its own Node process, driven over IPC by the webhook
 * process tests. Keys (hence events and the webhook outbox) live in PostgreSQL, or in Redis with
 * KEYWARD_TEST_KEYS=redis; rate limits and usage in Redis. KEYWARD_TEST_WEBHOOKS holds the
 * `webhooks` options as JSON. Every request it sends carries `x-test-instance: <its name>`.
 *
 * KEYWARD_TEST_HANG_AFTER_SEND=1 makes its `fetch` send the request and then never hand the
 * answer back (ignoring the abort too): the receiver has the event, this instance never records
 * it, as when a process dies right after sending.
 */
import { createKeyward } from "@keyward/core";
import { events } from "@keyward/core/events";
import { memoryRateLimitStore } from "@keyward/core/toolkit";
import { redisStore } from "@keyward/redis";
import { type WebhooksConfig, webhooks } from "@keyward/webhooks";
import IORedis from "ioredis";
import pg from "pg";
import { localRedis } from "../../../redis/test/support/redis-url.js";
import { postgresStore } from "../../src/index.js";

export type WebhookCommand =
  | { type: "changes"; ownerId: string; count: number; concurrency: number }
  | { type: "deliveries"; status?: "pending" | "delivered" | "dead"; endpointId?: string }
  | { type: "close" };

const name = process.env.KEYWARD_TEST_INSTANCE ?? "instance";
const hangAfterSend = process.env.KEYWARD_TEST_HANG_AFTER_SEND === "1";
const pool = new pg.Pool({ connectionString: process.env.KEYWARD_TEST_DATABASE_URL, max: 6 });
pool.on("error", () => {});
const pgStore = postgresStore({
  client: pool,
  schema: process.env.KEYWARD_TEST_SCHEMA!,
  cache: false,
});
const redisClient = new IORedis(localRedis);
redisClient.on("error", () => {});
const redis = redisStore({
  client: redisClient,
  prefix: process.env.KEYWARD_TEST_REDIS_PREFIX!,
  keys: process.env.KEYWARD_TEST_KEYS === "redis",
  timeoutMs: 5_000,
});
// The key store, with the events it writes and their outbox: parts of the same store.
const keysFrom =
  process.env.KEYWARD_TEST_KEYS === "redis"
    ? { keys: redis.keys!, events: redis.events!, outbox: redis.outbox! }
    : { keys: pgStore.keys, events: pgStore.events, outbox: pgStore.outbox };

const options = JSON.parse(process.env.KEYWARD_TEST_WEBHOOKS!) as WebhooksConfig;
const sendingFetch: typeof fetch = async (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set("x-test-instance", name);
  if (hangAfterSend) {
    // Sent for real, answer dropped: the receiver has it, this process never learns.
    await fetch(input, { ...init, headers, signal: null });
    return new Promise<Response>(() => {});
  }
  return fetch(input, { ...init, headers });
};

const keyward = createKeyward({
  store: {
    ...keysFrom,
    usage: redis.usage,
    rateLimits: memoryRateLimitStore(),
    close: async () => {
      await redis.close();
      redisClient.disconnect();
      await pgStore.close();
    },
  },
  scopes: { "profile:read": "Read profiles" },
  tiers: { free: { rateLimit: { limit: 1_000_000_000, window: "1m" } } },
  // No lifecycle(), so no per-owner limit: one owner makes thousands of keys.
  jwt: false,
  features: [events({ pruneIntervalMs: false }), webhooks({ ...options, fetch: sendingFetch })],
  logger: { error: (message) => console.error(`[${name}] ${message}`), warn() {} },
});

async function handle(command: WebhookCommand): Promise<unknown> {
  switch (command.type) {
    case "changes": {
      // `count` key changes (creations), `concurrency` at a time: an event each.
      const ids: string[] = [];
      let next = 0;
      const worker = async () => {
        while (next < command.count) {
          next += 1;
          const created = await keyward.keys.create({
            ownerId: command.ownerId,
            accountTier: "free",
            name: `change ${next}`,
            scopes: ["profile:read"],
            tier: "free",
          });
          ids.push(created.id);
        }
      };
      await Promise.all(Array.from({ length: command.concurrency }, worker));
      return ids;
    }
    case "deliveries": {
      const all = [];
      let after: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof keyward.webhooks.deliveries>> =
          await keyward.webhooks.deliveries({
            limit: 1000,
            after,
            ...(command.status ? { status: command.status } : {}),
            ...(command.endpointId ? { endpointId: command.endpointId } : {}),
          });
        all.push(...page.data);
        after = page.nextCursor;
      } while (after);
      return all;
    }
    case "close":
      await keyward.close();
      setTimeout(() => process.exit(0), 10);
      return null;
  }
}

process.on("message", async ({ id, command }: { id: number; command: WebhookCommand }) => {
  try {
    process.send!({ id, type: "result", value: await handle(command) });
  } catch (error) {
    process.send!({ id, type: "error", message: String((error as Error)?.stack ?? error) });
  }
});
process.send!({ id: 0, type: "result", value: "ready" });
