/**
 * `otel()` beside `metering()`, with the real metrics SDK and a real CloudEvents endpoint: each
 * exported event counted by outcome and sink (`keyward.metering.exports`), and the closed windows
 * waiting read from the ledger when the SDK collects (`keyward.metering.backlog`).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createKeyward, memoryStore } from "@keyward/core";
import { cloudEvents, memoryLedger, metering } from "@keyward/metering";
import { afterEach, describe, expect, it } from "vitest";
import { otel } from "../src/index.js";
import { meterSdk } from "./sdk.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("otel(): metering metrics", () => {
  it("counts exported events by outcome and sink, and reads the backlog when collected", async () => {
    let status = 503;
    const server = createServer((request, response) => {
      request.resume();
      request.on("end", () => response.writeHead(status).end());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
    const sdk = meterSdk();
    cleanups.push(sdk.shutdown);
    let now = Date.parse("2026-12-01T10:00:00Z");
    const keyward = createKeyward({
      store: memoryStore(),
      scopes: { "profile:read": "Read" },
      tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
      jwt: false,
      logger: false,
      clock: { now: () => now },
      features: [
        metering({ ledger: memoryLedger(), exportEvery: false, exporters: [cloudEvents({ url })] }),
        otel({ meterProvider: sdk.meterProvider }),
      ],
    });
    cleanups.push(() => keyward.close());
    const points = async (name: string) =>
      Object.fromEntries(
        ((await sdk.collect()).get(name) ?? []).map(({ attributes, value }) => [
          `${String(attributes["keyward.status"] ?? "all")}/${String(attributes["keyward.sink"])}`,
          value,
        ]),
      );
    await keyward.metering.record("alice", "requests", 3);
    await keyward.metering.record("bob", "requests", 1);
    now += 70_000;
    expect(await points("keyward.metering.backlog")).toEqual({ "all/cloudevents": 2 });
    await keyward.metering.exportNow(); // 503: both retried
    expect(await points("keyward.metering.exports")).toEqual({ "retried/cloudevents": 2 });
    status = 204;
    now += 3_600_000; // past any backoff
    await keyward.metering.exportNow();
    expect(await points("keyward.metering.exports")).toEqual({
      "retried/cloudevents": 2,
      "acknowledged/cloudevents": 2,
    });
    expect(await points("keyward.metering.backlog")).toEqual({ "all/cloudevents": 0 });
  });
});
