/**
 * `otel()` beside `webhooks()`, with the real metrics SDK and real HTTP endpoints: each delivery
 * attempt counted by how it ended (`keyward.webhook.deliveries`, `keyward.status`), and the pending
 * deliveries read from the outbox when the SDK collects (`keyward.webhook.backlog`).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createKeyward, memoryStore } from "@keyward/core";
import { events } from "@keyward/core/events";
import { webhooks } from "@keyward/webhooks";
import { afterEach, describe, expect, it } from "vitest";
import { otel } from "../src/index.js";
import { meterSdk } from "./sdk.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An endpoint answering every POST with `status`. */
async function endpoint(status: number): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(status).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

const secret = `whsec_${btoa("k".repeat(32))}`;

describe("otel(): webhook metrics", () => {
  it("counts attempts delivered, retrying and dead, and reads the backlog when collected", async () => {
    const sdk = meterSdk();
    cleanups.push(sdk.shutdown);
    let now = Date.parse("2026-11-28T00:00:00Z");
    const keyward = createKeyward({
      store: memoryStore(),
      scopes: { "profile:read": "Read" },
      tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
      jwt: false,
      logger: false,
      clock: { now: () => now },
      features: [
        events({ pruneIntervalMs: false, expiring: false }),
        webhooks({
          endpoints: [
            { id: "up", url: await endpoint(200), secret },
            { id: "down", url: await endpoint(503), secret },
          ],
          maxAttempts: 2,
          pollIntervalMs: false,
        }),
        otel({ meterProvider: sdk.meterProvider }),
      ],
    });
    cleanups.push(() => keyward.close());
    const points = async (name: string) =>
      Object.fromEntries(
        ((await sdk.collect()).get(name) ?? []).map(({ attributes, value }) => [
          String(attributes["keyward.status"] ?? "all"),
          value,
        ]),
      );

    await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    await keyward.webhooks.deliverNow();
    expect(await points("keyward.webhook.deliveries")).toEqual({ delivered: 1, retrying: 1 });
    expect(await points("keyward.webhook.backlog")).toEqual({ all: 1 }); // "down" waits to retry
    now += 24 * 60 * 60 * 1000; // past any backoff
    await keyward.webhooks.deliverNow();
    expect(await points("keyward.webhook.deliveries")).toEqual({
      delivered: 1,
      retrying: 1,
      dead: 1,
    });
    expect(await points("keyward.webhook.backlog")).toEqual({ all: 0 });
  });
});
