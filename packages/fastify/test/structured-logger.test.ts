/**
 * Fastify's own logger (pino) as Keyward's `logger`: a 500 on the key-management endpoints is one
 * JSON record with fields, not a sentence: the message, the cause as `err`, its `code`, and
 * Fastify's id of the request. No secret, and no token, in it.
 */
import { Writable } from "node:stream";
import { createKeyward, memoryStore } from "@keyward/core";
import Fastify from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { keywardPlugin } from "../src/index.js";

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("logger: Fastify's app.log", () => {
  it("logs a 500 as fields: err, code and the request id", async () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const app = Fastify({ logger: { level: "info", stream }, genReqId: () => "req-42" });
    const store = memoryStore();
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
      code: "ECONNREFUSED",
    });
    const keyward = createKeyward({
      store: {
        ...store,
        keys: {
          ...store.keys,
          listByOwner: async () => {
            throw refused;
          },
        },
      },
      scopes: { "profile:read": "Read" },
      tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
      jwt: false,
      session: () => ({ userId: "alice", tier: "free" }),
      logger: app.log,
    });
    closers.push(
      () => app.close(),
      () => keyward.close(),
    );
    await app.register(keywardPlugin, { keyward });
    const secretLooking = "sk_live_notakeybutlookslikeone000000000000";
    const response = await app.inject({
      method: "GET",
      url: "/api/v1/api-keys",
      headers: { "x-trace": secretLooking },
    });
    expect(response.statusCode).toBe(500);
    const record = lines.find((line) => line.keyward === true);
    expect(record).toMatchObject({
      level: 50,
      msg: "GET /api/v1/api-keys failed (500)",
      code: "ECONNREFUSED",
      requestId: "req-42",
      err: { type: "Error", message: "connect ECONNREFUSED 127.0.0.1:5432", code: "ECONNREFUSED" },
    });
    expect(JSON.stringify(lines)).not.toContain(secretLooking);
  });
});
