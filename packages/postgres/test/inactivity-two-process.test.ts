/**
 * `permissions({ disableAfterUnused })` across two processes on PostgreSQL (keys, events) and
 * Redis (rate limits, usage), with a stopped clock: both processes scan at the same moment, and
 * each stale key is disabled once, its `key.disabled` (actor `system`) written once, the warning
 * `key.inactive` written once, and a key used the day before left alone.
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createKeyward, manualClock } from "@keyward/core";
import IORedis from "ioredis";
import { afterAll, expect, it } from "vitest";
import { localRedis } from "../../redis/test/support/redis-url.js";
import { migrate } from "../src/index.js";
import { inactivityConfig } from "./inactivity/config.js";
import {
  describeOnServer,
  dropSchema,
  serverPool,
  serverUrl,
  uniqueSchema,
} from "./support/databases.js";

const day = 86_400_000;
const start = Date.parse("2026-01-01T00:00:00.000Z");
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const instanceFile = fileURLToPath(new URL("./inactivity/instance.ts", import.meta.url));

interface ScanReply {
  type: "ready" | "result" | "error";
  result?: { disabled: number; warned: number };
  message?: string;
}

/** A child process with its instance, once it says it is ready. */
async function startScanner(schema: string, prefix: string, now: number) {
  const output: string[] = [];
  const child: ChildProcess = fork(instanceFile, [], {
    cwd: packageDir,
    execArgv: ["--conditions=@keyward/source", "--import", "tsx"],
    env: {
      ...process.env,
      KEYWARD_TEST_DATABASE_URL: serverUrl,
      KEYWARD_TEST_SCHEMA: schema,
      KEYWARD_TEST_REDIS_PREFIX: prefix,
      KEYWARD_TEST_NOW: String(now),
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  child.stdout?.on("data", (chunk) => output.push(String(chunk)));
  child.stderr?.on("data", (chunk) => output.push(String(chunk)));
  const next = () =>
    new Promise<ScanReply>((resolve, reject) => {
      child.once("message", (reply: ScanReply) => resolve(reply));
      child.once("exit", (code) => reject(new Error(`exited (${code}):\n${output.join("")}`)));
    });
  const ready = await next();
  expect(ready.type, output.join("")).toBe("ready");
  return {
    scan: async () => {
      const replied = next();
      child.send("scan");
      const reply = await replied;
      if (reply.type !== "result") throw new Error(`${reply.message}\n${output.join("")}`);
      return reply.result!;
    },
    kill: () => child.kill(),
  };
}

describeOnServer("disableAfterUnused across two processes (PostgreSQL + Redis)", () => {
  const schema = uniqueSchema("inactive");
  const prefix = `keyward-test-inactive-${crypto.randomUUID()}:`;
  const pool = serverPool({ max: 4 });
  const redis = new IORedis(localRedis);
  afterAll(async () => {
    const stale = await redis.keys(`${prefix}*`);
    if (stale.length > 0) await redis.del(...stale);
    redis.disconnect();
    const dropping = serverPool({ max: 1 });
    await dropSchema(dropping, schema);
    await dropping.end();
  });

  it("disables each stale key once, writes each event once, and leaves a key used the day before alone", async () => {
    await migrate(pool, { schema });
    const clock = manualClock(start);
    const keyward = createKeyward({
      ...(await inactivityConfig({ pool, schema, redis, prefix })),
      clock,
    });
    const create = () =>
      keyward.keys.create({
        ownerId: "alice",
        accountTier: "free",
        name: "k",
        scopes: ["profile:read"],
        tier: "free",
      });
    // Enough stale keys that the two scans' writes interleave (each takes a while over them).
    const stale = [];
    for (let i = 0; i < 30; i++) stale.push(await create());
    const usedYesterday = await create();
    clock.advance(3 * day);
    // Unused since day 3: disabled on day 93, so warned (7 days ahead) on day 90.
    const dueSoon = await create();
    clock.advance(86 * day);
    const used = await keyward.verify(`Bearer ${usedYesterday.key}`, {
      scopes: ["profile:read"],
      route: "GET /profiles/:slug",
    });
    expect(used.ok).toBe(true);

    const now = start + 90 * day;
    const scanners = await Promise.all([
      startScanner(schema, prefix, now),
      startScanner(schema, prefix, now),
    ]);
    try {
      const results = await Promise.all(scanners.map((scanner) => scanner.scan()));
      // Between them: every stale key disabled once, the one warning written once.
      expect(results.reduce((sum, result) => sum + result.disabled, 0)).toBe(stale.length);
      expect(results.reduce((sum, result) => sum + result.warned, 0)).toBe(1);
    } finally {
      for (const scanner of scanners) scanner.kill();
    }

    const status = new Map((await keyward.keys.list("alice")).map((key) => [key.id, key.status]));
    for (const key of stale) expect(status.get(key.id)).toBe("disabled");
    expect(status.get(usedYesterday.id)).toBe("active");
    expect(status.get(dueSoon.id)).toBe("active");
    const typesOf = async (keyId: string) =>
      (await keyward.events.list({ owner: "alice", keyId })).data.map((event) => [
        event.type,
        event.actor.type,
      ]);
    for (const key of stale) {
      expect(await typesOf(key.id)).toEqual([
        ["key.disabled", "system"],
        ["key.created", "operator"],
      ]);
    }
    expect(await typesOf(usedYesterday.id)).toEqual([["key.created", "operator"]]);
    expect(await typesOf(dueSoon.id)).toEqual([
      ["key.inactive", "system"],
      ["key.created", "operator"],
    ]);
    await keyward.close();
  }, 60_000);
});
