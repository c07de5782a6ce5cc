/**
 * `otel()` with the real metrics SDK: `keyward.verifications` counts each outcome, principal kind
 * and tier exactly; `keyward.limit.refusals` each refusing layer; `keyward.verify.duration` holds
 * one sample per verification, in seconds; key ids only with `keyIds: true`; and with no SDK the
 * feature adds no observer at all.
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { metrics } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { otel } from "../src/index.js";
import { meterSdk } from "./sdk.js";

const scopes = { "profile:read": "Read", "profile:write": "Write" };
const tiers = {
  free: {
    rateLimit: { limit: 2, window: "1m" },
    ownerRateLimit: { limit: 3, window: "1m" },
    quota: { limit: 100, period: "day" },
  },
} as const;

const shutdowns: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const shutdown of shutdowns.splice(0)) await shutdown();
});

function instance(options: { keyIds?: boolean } = {}) {
  const sdk = meterSdk();
  shutdowns.push(sdk.shutdown);
  const keyward = createKeyward({
    store: memoryStore(),
    scopes,
    tiers,
    jwt: false,
    logger: false,
    features: [otel({ meterProvider: sdk.meterProvider, ...options })],
  });
  shutdowns.push(() => keyward.close());
  const make = () =>
    keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
  const verify = (key: string, scopes = ["profile:read"]) =>
    keyward.verify(`Bearer ${key}`, { route: "GET /x", scopes });
  return { keyward, make, verify, collect: sdk.collect };
}

describe("otel(): metrics", () => {
  it("counts verifications by outcome, kind and tier, refusals by layer, and times each", async () => {
    const { keyward, make, verify, collect } = instance();
    const one = await make();
    const two = await make();
    const started = performance.now();
    await verify(one.key); // ok
    await verify(one.key, ["profile:write"]); // 403
    await verify(one.key); // 429: the key's own 2 a minute
    await verify(two.key); // ok (the owner's third)
    await verify(two.key); // 429: the owner's 3 a minute
    await keyward.verify(undefined); // 401 missing
    await keyward.verify(`Bearer ${one.key}x`); // 401 invalid
    const elapsedSeconds = (performance.now() - started) / 1000;
    const metrics = await collect();
    const verifications = metrics.get("keyward.verifications")!;
    expect(
      verifications
        .map(({ attributes, value }): Record<string, unknown> => ({ ...attributes, value }))
        .sort((a, b) => String(a["keyward.outcome"]).localeCompare(String(b["keyward.outcome"]))),
    ).toEqual([
      { "keyward.outcome": "insufficient_scope", value: 1 },
      { "keyward.outcome": "invalid_api_key", value: 1 },
      { "keyward.outcome": "missing_credentials", value: 1 },
      {
        "keyward.outcome": "ok",
        "keyward.principal.kind": "key",
        "keyward.tier": "free",
        value: 2,
      },
      { "keyward.outcome": "rate_limited", value: 2 },
    ]);
    expect(
      metrics
        .get("keyward.limit.refusals")!
        .map(({ attributes, value }): Record<string, unknown> => ({ ...attributes, value }))
        .sort((a, b) => String(a["keyward.layer"]).localeCompare(String(b["keyward.layer"]))),
    ).toEqual([
      { "keyward.layer": "key", value: 1 },
      { "keyward.layer": "owner", value: 1 },
    ]);
    const durations = metrics.get("keyward.verify.duration")!;
    let samples = 0;
    for (const { value } of durations) {
      const histogram = value as { count: number; sum: number; max?: number };
      samples += histogram.count;
      // Seconds: together within the calls' own wall time (milliseconds would be 1000 times over).
      expect(histogram.sum).toBeGreaterThan(0);
      expect(histogram.sum).toBeLessThanOrEqual(elapsedSeconds);
    }
    expect(samples).toBe(7);
    // Counters are cumulative: a second collection reports the same counts, plus what came since.
    await verify(two.key);
    const again = await collect();
    const total = again
      .get("keyward.verifications")!
      .reduce((sum, { value }) => sum + (value as number), 0);
    expect(total).toBe(8);
  });

  it("puts the admitted key's id on the count only when the host opts in", async () => {
    const without = instance();
    const a = await without.make();
    await without.verify(a.key);
    const plain = (await without.collect()).get("keyward.verifications")!;
    expect(plain.map(({ attributes }) => attributes["keyward.key.id"])).toEqual([undefined]);

    const withIds = instance({ keyIds: true });
    const b = await withIds.make();
    await withIds.verify(b.key);
    await withIds.verify(b.key);
    const counted = (await withIds.collect()).get("keyward.verifications")!;
    expect(counted.map(({ attributes, value }) => [attributes["keyward.key.id"], value])).toEqual([
      [b.id, 2],
    ]);
  });

  it("with no SDK anywhere, adds no observer: verify is not wrapped", () => {
    const feature = otel();
    expect(feature.extends).toBeUndefined();
  });

  it("reports to the global meter provider registered before it is called", async () => {
    const sdk = meterSdk();
    shutdowns.push(sdk.shutdown);
    expect(metrics.setGlobalMeterProvider(sdk.meterProvider)).toBe(true);
    try {
      const feature = otel();
      expect(feature.extends?.verify?.around).toHaveLength(1);
      const keyward = createKeyward({
        store: memoryStore(),
        scopes,
        tiers,
        jwt: false,
        logger: false,
        features: [feature],
      });
      shutdowns.push(() => keyward.close());
      await keyward.verify(undefined);
      const counted = (await sdk.collect()).get("keyward.verifications")!;
      expect(
        counted.map(({ attributes, value }) => [attributes["keyward.outcome"], value]),
      ).toEqual([["missing_credentials", 1]]);
    } finally {
      metrics.disable();
    }
    // Gone again: a feature made now lists nothing.
    expect(otel().extends).toBeUndefined();
  });

  it("refuses malformed options at start, naming them", () => {
    expect(() => otel({ keyIds: "yes" } as never)).toThrow("`keyIds` must be true or false");
    expect(() => otel({ meterProvider: {} } as never)).toThrow("`meterProvider` must be");
    expect(() => otel({ tracerProvider: 1 } as never)).toThrow("`tracerProvider` must be");
    expect(() => otel({ meter: 1 } as never)).toThrow("otel() has no option `meter`");
    expect(() => otel(null as never)).toThrow("otel() takes");
  });
});
