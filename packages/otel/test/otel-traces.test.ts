/**
 * `otel()` with the real tracing SDK (in-memory exporter, the async-hooks context manager), on
 * Express, Fastify and Fetch, against the Redis at 127.0.0.1:6379: one `keyward.verify` span per
 * request, parented to the host's request span when there is one (a root otherwise), with one
 * `keyward.store` child per Redis call it made; and no attribute of any span or metric point holds
 * the secret, its hash or the token.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createKeyward, type Keyward } from "@keyward/core";
import { createSecretHasher } from "@keyward/core/toolkit";
import { requireApiKey } from "@keyward/express";
import { keywardPlugin } from "@keyward/fastify";
import { withApiKey } from "@keyward/fetch";
import { redisStore } from "@keyward/redis";
import { context, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import express from "express";
import Fastify from "fastify";
import { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { localRedis } from "../../redis/test/support/redis-url.js";
import { otel } from "../src/index.js";
import { meterSdk, traceSdk } from "./sdk.js";

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

const redis = new Redis({
  ...localRedis,
  lazyConnect: true,
  maxRetriesPerRequest: 1,
});
await redis.connect();
afterAll(() => redis.quit());

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup() {
  const traces = traceSdk();
  const meters = meterSdk();
  cleanups.push(traces.shutdown, meters.shutdown);
  const prefix = `kwtest:otel:${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}:`;
  const keyward = createKeyward({
    store: redisStore({ client: redis, keys: true, prefix, timeoutMs: 2_000 }),
    scopes: { "profile:read": "Read", "profile:write": "Write" },
    tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
    jwt: false,
    logger: false,
    features: [
      otel({
        tracerProvider: traces.tracerProvider,
        meterProvider: meters.meterProvider,
        keyIds: true,
      }),
    ],
  });
  cleanups.push(async () => {
    await keyward.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  });
  const created = await keyward.keys.create({
    ownerId: "alice",
    accountTier: "free",
    name: "k",
    scopes: ["profile:read"],
    tier: "free",
  });
  traces.exporter.reset(); // the key's creation made store calls of its own, outside any request
  const hostTracer = traces.tracerProvider.getTracer("host");
  return { keyward, created, traces, meters, hostTracer };
}

/** The host's own request span around each request, as an HTTP server instrumentation makes it. */
function withHostSpan(tracer: ReturnType<typeof trace.getTracer>, listener: Listener): Listener {
  return (request, response) => {
    tracer.startActiveSpan(`host ${request.method} ${request.url}`, (span) => {
      response.on("finish", () => span.end());
      listener(request, response);
    });
  };
}

async function listen(listener: Listener): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

type Send = (path: string, authorization: string) => Promise<number>;

const adapters: Record<
  string,
  (
    keyward: Keyward,
    host: ((listener: Listener) => Listener) | undefined,
    tracer: ReturnType<typeof trace.getTracer>,
  ) => Promise<Send>
> = {
  async express(keyward, host) {
    const app = express();
    app.get("/read", requireApiKey(keyward, { scopes: ["profile:read"] }), (_req, res) => {
      res.json({ ok: true });
    });
    app.get("/write", requireApiKey(keyward, { scopes: ["profile:write"] }), (_req, res) => {
      res.json({ ok: true });
    });
    const listener = app as unknown as Listener;
    const base = await listen(host ? host(listener) : listener);
    return async (path, authorization) =>
      (await fetch(`${base}${path}`, { headers: { authorization } })).status;
  },
  async fastify(keyward, host) {
    const app = Fastify({
      serverFactory: (handler) => createServer(host ? host(handler) : handler),
    });
    await app.register(keywardPlugin, { keyward });
    app.get("/read", { preHandler: app.requireApiKey({ scopes: ["profile:read"] }) }, async () => ({
      ok: true,
    }));
    app.get(
      "/write",
      { preHandler: app.requireApiKey({ scopes: ["profile:write"] }) },
      async () => ({
        ok: true,
      }),
    );
    await app.listen({ port: 0, host: "127.0.0.1" });
    cleanups.push(() => app.close());
    const { port } = app.server.address() as AddressInfo;
    return async (path, authorization) =>
      (await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization } })).status;
  },
  async fetch(keyward, host, tracer) {
    const handlers: Record<string, (request: Request) => Promise<Response>> = {
      "/read": withApiKey(keyward, { scopes: ["profile:read"], route: "GET /read" }, () =>
        Response.json({ ok: true }),
      ),
      "/write": withApiKey(keyward, { scopes: ["profile:write"], route: "GET /write" }, () =>
        Response.json({ ok: true }),
      ),
    };
    return async (path, authorization) => {
      const request = new Request(`http://host${path}`, { headers: { authorization } });
      const serve = () => handlers[path]!(request);
      const response = host
        ? await tracer.startActiveSpan(`host GET ${path}`, async (span) => {
            try {
              return await serve();
            } finally {
              span.end();
            }
          })
        : await serve();
      return response.status;
    };
  },
};

const verifySpans = (spans: ReadableSpan[]) =>
  spans.filter((span) => span.name === "keyward.verify");
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe("otel(): traces", () => {
  for (const [name, adapter] of Object.entries(adapters)) {
    for (const hosted of [true, false]) {
      it(`${name}${hosted ? ", inside the host's request span" : ", with no host span"}: one keyward.verify per request, its store calls as children`, async () => {
        const { keyward, created, traces, hostTracer } = await setup();
        const send = await adapter(
          keyward,
          hosted ? (l) => withHostSpan(hostTracer, l) : undefined,
          hostTracer,
        );
        expect(await send("/read", `Bearer ${created.key}`)).toBe(200);
        expect(await send("/write", `Bearer ${created.key}`)).toBe(403);
        expect(await send("/read", "Bearer not-a-key")).toBe(401);
        await traces.tracerProvider.forceFlush();
        const spans = traces.exporter.getFinishedSpans();
        const verifies = verifySpans(spans);
        expect(verifies.map((span) => span.attributes["keyward.outcome"])).toEqual([
          "ok",
          "insufficient_scope",
          "invalid_token",
        ]);
        const hosts = spans.filter((span) => span.name.startsWith("host "));
        if (hosted) {
          expect(hosts).toHaveLength(3);
          verifies.forEach((span, index) => {
            expect(parentOf(span)).toBe(hosts[index]!.spanContext().spanId);
            expect(span.spanContext().traceId).toBe(hosts[index]!.spanContext().traceId);
          });
        } else {
          expect(hosts).toHaveLength(0);
          for (const span of verifies) expect(parentOf(span)).toBeUndefined();
        }
        // Every store call made during a request is a child of that request's keyward.verify.
        const storeCalls = spans.filter((span) => span.name === "keyward.store");
        const childrenOf = (verify: ReadableSpan) =>
          storeCalls
            .filter((call) => parentOf(call) === verify.spanContext().spanId)
            .map((call) => [
              call.attributes["keyward.operation"],
              call.attributes["keyward.outcome"],
            ]);
        expect(childrenOf(verifies[0]!)).toEqual([
          ["find-key-by-hash", "ok"],
          ["consume", "ok"],
        ]);
        expect(childrenOf(verifies[1]!)).toEqual([
          ["find-key-by-hash", "ok"],
          ["consume", "ok"],
        ]);
        expect(childrenOf(verifies[2]!)).toEqual([]); // a JWT-shaped token that never reached Redis
        // Usage writes and other background calls may follow; none is orphaned inside a request.
        for (const call of storeCalls.filter(
          (c) => c.attributes["keyward.operation"] === "consume",
        )) {
          expect(verifies.map((v) => v.spanContext().spanId)).toContain(parentOf(call));
        }
        expect(verifies[0]!.attributes["keyward.key.id"]).toBe(created.id);
        expect(verifies[0]!.attributes["http.response.status_code"]).toBe(200);
        expect(verifies[1]!.attributes["http.response.status_code"]).toBe(403);
      });
    }
  }

  it("no attribute of any span or metric point holds the secret, its hash or the token", async () => {
    const { keyward, created, traces, meters } = await setup();
    const send = await adapters.express!(keyward, undefined, trace.getTracer("unused"));
    expect(await send("/read", `Bearer ${created.key}`)).toBe(200);
    expect(await send("/write", `Bearer ${created.key}`)).toBe(403);
    const unknown = `${created.key.slice(0, -6)}AAAAAA`;
    await send("/read", `Bearer ${unknown}`);
    await context.with(context.active(), () => keyward.verify(`Bearer ${created.key}`));
    await traces.tracerProvider.forceFlush();
    const hasher = createSecretHasher({});
    const forbidden = [created.key, unknown, hasher.hash(created.key), hasher.hash(unknown)];
    // Long pieces too: a truncated token or hash is still a leak.
    const pieces = forbidden.flatMap((secret) => [secret, secret.slice(0, 16), secret.slice(-16)]);
    const seen: unknown[] = [];
    const walk = (value: unknown) => {
      seen.push(value);
      const text = typeof value === "string" ? value : JSON.stringify(value);
      for (const piece of pieces)
        expect(text, `an attribute holds ${piece.slice(0, 4)}…`).not.toContain(piece);
    };
    const spans = traces.exporter.getFinishedSpans();
    expect(spans.length).toBeGreaterThan(5);
    for (const span of spans) {
      walk(span.name);
      for (const [key, value] of Object.entries(span.attributes)) {
        walk(key);
        walk(value);
      }
      for (const event of span.events) walk(event);
      walk(span.status);
    }
    for (const points of (await meters.collect()).values()) {
      for (const { attributes } of points) {
        for (const [key, value] of Object.entries(attributes)) {
          walk(key);
          walk(value);
        }
      }
    }
    expect(seen.length).toBeGreaterThan(50);
  });
});
