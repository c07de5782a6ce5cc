/**
 * What metering costs `verify()`: the bar is "at most +10 %". Two instances on the memory
 * store, one listing `metering()` (the memory ledger, no exporter running), one without; the same
 * kind of key verified on each. Served requests on the metered one add one request to the owner's
 * current window (a synchronous map update: the memory ledger answers without a promise, so the
 * call stays synchronous).
 *
 * As in verify-resource.bench.ts, the pair is measured interleaved: rounds of 5 000 synchronous
 * calls (`verifyPending`) in alternating order (ABBA). Reported: the median over rounds of the
 * ratio of the two sides within a round (robust to the load changing between rounds on a shared
 * machine), and the median round of each side.
 *
 * @example
 * npx pnpm@10 bench verify-metering.bench.ts
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { isPromise, verifyPending } from "@keyward/core/toolkit";
import { memoryLedger, metering } from "@keyward/metering";
import { do_not_optimize } from "mitata";

const unlimited = { rateLimit: { limit: 1_000_000_000, window: "1m" } };
const common = {
  scopes: { "profile:read": "Read profiles" },
  tiers: { pro: unlimited },
  jwt: false as const,
  logger: false as const,
};
const plain = createKeyward({ ...common, store: memoryStore() });
const metered = createKeyward({
  ...common,
  store: memoryStore(),
  features: [metering({ ledger: memoryLedger(), exportEvery: false })],
});
const fields = {
  ownerId: "alice",
  accountTier: "pro",
  name: "bench",
  scopes: ["profile:read"],
  tier: "pro",
};
const plainKey = `Bearer ${(await plain.keys.create(fields)).key}`;
const meteredKey = `Bearer ${(await metered.keys.create(fields)).key}`;
const route = "GET /api/v1/profiles/:slug";
const scopes = ["profile:read"];

const syncVerify = (keyward: typeof plain | typeof metered, header: string) => {
  const result = verifyPending(keyward, header, { scopes, route });
  if (isPromise(result) || !result.ok) {
    throw new Error("the bench expects an admitted, synchronous verify");
  }
  return result;
};

/**
 * Nanoseconds a call, per side and round, over interleaved rounds: each round runs both sides back
 * to back (ABBA), so a round's two figures share the machine's load of that moment.
 */
function interleaved(sides: Record<string, () => unknown>, rounds = 201, calls = 5_000) {
  const times: Record<string, number[]> = {};
  const entries = Object.entries(sides);
  for (const [name] of entries) times[name] = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? entries : [...entries].reverse();
    for (const [name, call] of order) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) do_not_optimize(call());
      times[name]!.push(Number(process.hrtime.bigint() - start) / calls);
    }
  }
  return times;
}

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[values.length >> 1]!;
const percent = (ratio: number) => `${((ratio - 1) * 100).toFixed(1)} %`;

const times = interleaved({
  without: () => syncVerify(plain, plainKey),
  with: () => syncVerify(metered, meteredKey),
});
const withTimes = times.with!;
const withoutTimes = times.without!;
// On a loaded machine the medians of each side drift with the load between rounds; the ratio of
// the two sides within each round does not, and its median is the figure to read.
const pairedRatio = median(withTimes.map((ns, round) => ns / withoutTimes[round]!));
console.log(
  `verify() with metering vs without, interleaved: median of per-round ratios ${percent(pairedRatio)}; medians ${median(withTimes).toFixed(0)} ns vs ${median(withoutTimes).toFixed(0)} ns a call (${percent(median(withTimes) / median(withoutTimes))})`,
);
const totals = await metered.metering.ledger.totals(0, Number.MAX_SAFE_INTEGER);
console.log(`ledger: ${JSON.stringify(totals)}`);
await plain.close();
await metered.close();
