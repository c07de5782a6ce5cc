/**
 * One Keyward instance in its own Node process, driven by the two-process test over IPC. Run as
 * `node --conditions=@keyward/source --import tsx instance.ts` with KEYWARD_TEST_DATABASE_URL and
 * KEYWARD_TEST_SCHEMA set. With KEYWARD_TEST_REDIS_PREFIX, rate limits and usage live in the local
 * Redis under that prefix (keys stay in PostgreSQL), as in a deployment on both; with
 * KEYWARD_TEST_KEYS=redis as well, the keys (and their events) live there too. With
 * KEYWARD_TEST_EVENTS=1, changes write events.
 */
import { createKeyward, isKeywardError } from "@keyward/core";
import { events } from "@keyward/core/events";
import { lifecycle } from "@keyward/core/lifecycle";
import {
  type CachedKeyStore,
  createSecretHasher,
  memoryRateLimitStore,
} from "@keyward/core/toolkit";
import { redisStore } from "@keyward/redis";
import IORedis from "ioredis";
import pg from "pg";
import { localRedis } from "../../../redis/test/support/redis-url.js";
import { postgresStore } from "../../src/index.js";

export type Command =
  | { type: "create"; ownerId: string; scopes?: string[] }
  | { type: "patch"; ownerId: string; keyId: string; changes: Record<string, unknown> }
  | { type: "inspect"; ownerId: string; keyId: string }
  | { type: "rotate"; ownerId: string; keyId: string; gracePeriodSeconds?: number }
  | { type: "usage"; ownerId: string; keyId: string }
  | { type: "revoke"; ownerId: string; keyId: string }
  | { type: "disable"; ownerId: string; keyId: string }
  | { type: "enable"; ownerId: string; keyId: string }
  | { type: "verify"; secret: string }
  | { type: "watch"; secret: string; until?: "refused" | "accepted" }
  | { type: "close" };

export type Reply =
  | { id: number; type: "result"; value: unknown }
  | { id: number; type: "error"; message: string }
  | { id: number; type: "watching"; cacheHit: boolean };

const now = () => performance.timeOrigin + performance.now();
const send = (reply: Reply) => process.send!(reply);

const pool = new pg.Pool({ connectionString: process.env.KEYWARD_TEST_DATABASE_URL, max: 4 });
pool.on("error", () => {});
const store = postgresStore({ client: pool, schema: process.env.KEYWARD_TEST_SCHEMA! });
await store.ready;
const redisPrefix = process.env.KEYWARD_TEST_REDIS_PREFIX;
const redisClient = redisPrefix ? new IORedis(localRedis) : undefined;
redisClient?.on("error", () => {});
// A generous deadline: this test measures propagation on a machine that may be busy, not faults.
const redis =
  redisClient && redisStore({ client: redisClient, prefix: redisPrefix, timeoutMs: 2_000 });
const redisKeys = process.env.KEYWARD_TEST_KEYS === "redis";
if (redisKeys && !redis) throw new Error("KEYWARD_TEST_KEYS=redis needs KEYWARD_TEST_REDIS_PREFIX");
const keysRedis =
  redisKeys && redisClient
    ? redisStore({ client: redisClient, prefix: redisPrefix, timeoutMs: 2_000, keys: true })
    : undefined;
const keyward = createKeyward({
  store: {
    // The key store with the events it writes and their outbox: parts of one store.
    ...(keysRedis
      ? { keys: keysRedis.keys, events: keysRedis.events, outbox: keysRedis.outbox }
      : { keys: store.keys, events: store.events, outbox: store.outbox }),
    usage: redis?.usage ?? store.usage,
    rateLimits: redis?.rateLimits ?? memoryRateLimitStore(),
    close: async () => {
      await keysRedis?.close();
      await redis?.close();
      redisClient?.disconnect();
      await store.close();
    },
  },
  features: [
    lifecycle({ gracefulRotation: true }),
    ...(process.env.KEYWARD_TEST_EVENTS === "1" ? [events({ pruneIntervalMs: false })] : []),
  ],
  scopes: {
    "profile:read": "Read profiles",
    "profile:write": "Edit profiles",
    "profile:admin": "Administer profiles",
  },
  // Limits far out of reach: the watch loop verifies thousands of times a second.
  tiers: { free: { rateLimit: { limit: 1_000_000_000, window: "1m" } } },
});
const cacheStats = () => ({ ...(store.keys as CachedKeyStore).stats });

type VerifyResult = { ok: boolean; error?: { status?: number } };
const verifyOnKeyward = (
  keyward as unknown as {
    verify?: (
      header: string,
      options: { scopes: string[]; route: string },
    ) => Promise<VerifyResult>;
  }
).verify;
const hasher = createSecretHasher();

/** Whether `secret` is accepted here: `keyward.verify` when core has it, else the store lookup it makes. */
async function accepted(secret: string): Promise<boolean> {
  if (verifyOnKeyward) {
    const result = await verifyOnKeyward.call(keyward, `Bearer ${secret}`, {
      scopes: ["profile:read"],
      route: "GET /profiles/:slug",
    });
    if (!result.ok && result.error?.status !== 401) {
      throw new Error(`verify refused with status ${result.error?.status}, not 401`);
    }
    return result.ok;
  }
  const key = await store.keys.findByHash(hasher.hash(secret));
  return (
    key !== null && key.revokedAt === null && (key.expiresAt === null || key.expiresAt > Date.now())
  );
}

async function handle(id: number, command: Command): Promise<unknown> {
  switch (command.type) {
    case "create": {
      const created = await keyward.keys.create({
        ownerId: command.ownerId,
        accountTier: "free",
        name: "two-process",
        scopes: command.scopes ?? ["profile:read"],
        tier: "free",
      });
      return { keyId: created.id, secret: created.key };
    }
    case "patch": {
      // The outcome, refusals included: the test counts them; anything but a KeywardError throws.
      try {
        const record = await keyward.keys.update(command.ownerId, command.keyId, command.changes);
        return { status: 200, record };
      } catch (error) {
        if (!isKeywardError(error)) throw error;
        return { status: error.status, code: error.code };
      }
    }
    case "inspect": {
      const records = await keyward.keys.list(command.ownerId);
      const { data } = await keyward.events.list({
        owner: command.ownerId,
        keyId: command.keyId,
        limit: 1_000,
      });
      return { record: records.find((record) => record.id === command.keyId), events: data };
    }
    case "rotate": {
      const startedAt = now();
      const rotated = await keyward.keys.rotate(command.ownerId, command.keyId, {
        gracePeriodSeconds: command.gracePeriodSeconds ?? 0,
      });
      return {
        startedAt,
        returnedAt: now(),
        secret: rotated.key,
        previousSecretExpiresAt: rotated.previousSecretExpiresAt ?? null,
      };
    }
    case "usage": {
      const usage = await keyward.keys.usage(command.ownerId, command.keyId);
      return { totalRequests: usage.totalRequests };
    }
    case "revoke": {
      const startedAt = now();
      await keyward.keys.revoke(command.ownerId, command.keyId);
      return { startedAt, returnedAt: now() };
    }
    case "disable":
    case "enable": {
      const startedAt = now();
      await keyward.keys.update(command.ownerId, command.keyId, {
        enabled: command.type === "enable",
      });
      return { startedAt, returnedAt: now() };
    }
    case "verify":
      return {
        ok: await accepted(command.secret),
        verifyPath: verifyOnKeyward ? "keyward.verify" : "findByHash",
      };
    case "watch": {
      // Warm the cache, confirm the next check is a hit, then check about every millisecond until
      // the key is refused. A timer rather than a setImmediate spin leaves the CPU to the other
      // process and the database: on a two-core machine a spin measures contention, not NOTIFY.
      // Watching for a refusal (the default) starts from an accepted key; for acceptance (a key
      // enabled again), from a refused one.
      const waitFor = command.until ?? "refused";
      const startsAccepted = waitFor === "refused";
      if ((await accepted(command.secret)) !== startsAccepted)
        throw new Error(
          `watched key is not ${startsAccepted ? "accepted" : "refused"} to begin with`,
        );
      const before = cacheStats().hits;
      await accepted(command.secret);
      send({ id, type: "watching", cacheHit: cacheStats().hits > before });
      const deadline = now() + 5_000;
      let checks = 0;
      while ((await accepted(command.secret)) === startsAccepted) {
        checks++;
        if (now() > deadline) throw new Error(`still not ${waitFor} 5 s after the change`);
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      return { refusedAt: now(), checks };
    }
    case "close":
      await keyward.close();
      await pool.end();
      return { closed: true };
  }
}

process.on("message", (message: { id: number; command: Command }) => {
  handle(message.id, message.command).then(
    (value) => {
      send({ id: message.id, type: "result", value });
      if (message.command.type === "close") process.disconnect();
    },
    (error: unknown) =>
      send({
        id: message.id,
        type: "error",
        message: error instanceof Error ? error.message : String(error),
      }),
  );
});
send({ id: 0, type: "result", value: { ready: true } });
