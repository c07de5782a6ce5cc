/**
 * What the fault tests share: a Keyward on a Postgres store with limits out of reach, requests
 * timed as the HTTP layer (or `verify`) answers them, a watch for errors nobody handled, and
 * cleanup that resumes every paused proxy before anything else is closed.
 */
import { createKeyward, type Keyward, type VerifyResult } from "@keyward/core";
import { createKeyFormat, createSecretHasher, memoryRateLimitStore } from "@keyward/core/toolkit";
import { afterEach } from "vitest";
import type { PostgresStore } from "../../src/index.js";
import type { PausableProxy } from "./pausable-proxy.js";

export const jwtSecret = "postgres-fault-tests-secret-0123456789";
const basePath = "http://keyward.test/api/v1/api-keys";
const route = "GET /profiles/:slug";
export const hasher = createSecretHasher();

/** What one request came back with, and how long it took. */
export interface Outcome {
  request: string;
  status: number;
  detail: unknown;
  ms: number;
}

/** Errors nobody handled: an 'error' event without a listener ends up here (or kills the process). */
export function watchUnhandled(): { errors: unknown[]; stop(): void } {
  const errors: unknown[] = [];
  const record = (error: unknown) => errors.push(error);
  process.on("uncaughtException", record);
  process.on("unhandledRejection", record);
  return {
    errors,
    stop() {
      process.off("uncaughtException", record);
      process.off("unhandledRejection", record);
    },
  };
}

/**
 * Registers, in the calling test file, an `afterEach` that resumes every proxy in `proxies` and
 * then runs `cleanups` in reverse order, so nothing is left waiting on a paused socket.
 */
export function cleanupAfterEach(): {
  cleanups: (() => Promise<unknown>)[];
  proxies: PausableProxy[];
} {
  const cleanups: (() => Promise<unknown>)[] = [];
  const proxies: PausableProxy[] = [];
  afterEach(async () => {
    for (const proxy of proxies.splice(0)) proxy.resume();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  });
  return { cleanups, proxies };
}

export function keywardOn(store: PostgresStore, onError: (error: unknown) => void): Keyward {
  return createKeyward({
    store: {
      keys: store.keys,
      events: store.events,
      outbox: store.outbox,
      usage: store.usage,
      rateLimits: memoryRateLimitStore(),
      close: () => store.close(),
    },
    scopes: { "profile:read": "Read profiles" },
    tiers: { free: { rateLimit: { limit: 1_000_000_000, window: "1m" } } },
    jwt: { secret: jwtSecret },
    usage: { flushIntervalMs: 50 },
    // The fault runs create a key per round for one user, hundreds of them: not a key-count test,
    // and without lifecycle() no per-owner limit applies.
    onError,
  });
}

/** The requests of the tests, each as the HTTP layer (or `verify`) answers it. */
export function requester(keyward: Keyward, jwt: string) {
  const timed = async (
    request: string,
    send: () => Promise<{ status: number; detail: unknown }>,
  ) => {
    const started = performance.now();
    const { status, detail } = await send();
    return { request, status, detail, ms: performance.now() - started } satisfies Outcome;
  };
  const http =
    (path: string, init: RequestInit = {}) =>
    async () => {
      const response = await keyward.handle(
        new Request(`${basePath}${path}`, {
          ...init,
          headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" },
        }),
      );
      const body = (await response.json()) as { detail?: unknown };
      return { status: response.status, detail: body.detail };
    };
  const verify = (secret: string) => async () => {
    const result: VerifyResult = await keyward.verify(`Bearer ${secret}`, {
      scopes: ["profile:read"],
      route,
    });
    return result.ok
      ? { status: 200, detail: undefined }
      : { status: result.error.status, detail: result.error.detail };
  };
  return {
    list: () => timed("list", http("")),
    create: () =>
      timed(
        "create",
        http("", {
          method: "POST",
          body: JSON.stringify({ name: "fault", scopes: ["profile:read"], tier: "free" }),
        }),
      ),
    usage: (keyId: string) => timed("usage", http(`/${keyId}/usage`)),
    verify: (label: string, secret: string) => timed(label, verify(secret)),
  };
}

/** A well-formed key (right shape, right checksum) that no one has created. */
export const unknownKey = () => createKeyFormat().generate();

/** A unique `application_name`: the only connections a test may terminate carry it. */
export const applicationName = (label: string) =>
  `kw_fault_${label}_${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36)}`;
