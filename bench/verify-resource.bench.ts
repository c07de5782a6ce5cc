/**
 * What a resource check costs `verify()`: the bar is "within 5 % of without". One instance
 * with `lifecycle()` and `permissions()` on the memory store, a key limited to
 * `{ profile: ["alice", "bob", "carol"] }`; the same call with `resource: { profile: "carol" }`
 * (admitted: the last id, the longest scan) against the call without `resource`, and a key without
 * resources given the same `resource` (the check's first comparison). The check reads the record
 * `verify` already holds, so no side asks the store anything more.
 *
 * On a shared machine mitata's per-side figures wander by more than the 5 % in question, so the
 * file first measures the pair itself, interleaved: rounds of 5 000 synchronous calls
 * (`verifyPending`, no promise: the memory store answers at once) in alternating order (ABBA), the median round of each side compared. That ratio is the figure docs/benchmarks.md gives.
 *
 * @example
 * npx pnpm@10 bench verify-resource.bench.ts
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { lifecycle } from "@keyward/core/lifecycle";
import { permissions } from "@keyward/core/permissions";
import { isPromise, verifyPending } from "@keyward/core/toolkit";
import { bench, do_not_optimize, group, summary } from "mitata";
// The check alone, from its source (not an entry point): what the `resource` option adds to the path.
import { resourceCheck } from "../packages/core/src/features/permissions/resource-check.js";

const unlimited = { rateLimit: { limit: 1_000_000_000, window: "1m" } };
const keyward = createKeyward({
  store: memoryStore(),
  scopes: { "profile:read": "Read profiles" },
  tiers: { pro: unlimited },
  features: [lifecycle(), permissions()],
});
const fields = {
  ownerId: "alice",
  accountTier: "pro",
  name: "bench",
  scopes: ["profile:read"],
  tier: "pro",
};
const limited = `Bearer ${(await keyward.keys.create({ ...fields, resources: { profile: ["alice", "bob", "carol"] } })).key}`;
const unlimitedKey = `Bearer ${(await keyward.keys.create(fields)).key}`;

const route = "GET /api/v1/profiles/:slug";
const scopes = ["profile:read"];
const resource = { profile: "carol" };
for (const header of [limited, unlimitedKey]) {
  const check = await keyward.verify(header, { scopes, route, resource });
  if (!check.ok) throw new Error(`refused the bench key: ${check.error.detail}`);
}

/** Median nanoseconds a call, per side, over interleaved rounds. */
function interleaved(sides: Record<string, () => unknown>, rounds = 201, calls = 5_000) {
  const times: Record<string, number[]> = {};
  const entries = Object.entries(sides);
  for (const [name] of entries) times[name] = [];
  for (let round = 0; round < rounds; round++) {
    // Each round in the other order (ABBA): neither side is always the one measured second.
    const order = round % 2 === 0 ? entries : [...entries].reverse();
    for (const [name, call] of order) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < calls; i++) do_not_optimize(call());
      times[name]!.push(Number(process.hrtime.bigint() - start) / calls);
    }
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;
  return Object.fromEntries(Object.entries(times).map(([name, ns]) => [name, median(ns)]));
}

const syncVerify = (header: string, options: Parameters<typeof keyward.verify>[1]) => {
  const result = verifyPending(keyward, header, options);
  if (isPromise(result) || !result.ok)
    throw new Error("the bench expects an admitted, synchronous verify");
  return result;
};
const medians = interleaved({
  without: () => syncVerify(limited, { scopes, route, resource: undefined }),
  with: () => syncVerify(limited, { scopes, route, resource }),
});
console.log(
  `verify() with resource vs without, interleaved medians: ${medians.with!.toFixed(0)} ns vs ${medians.without!.toFixed(0)} ns a call (${((medians.with! / medians.without! - 1) * 100).toFixed(1)} %)`,
);

// The check by itself, on the key record verify holds: the whole of the work `resource` adds.
const record = (await keyward.keys.list("alice")).find((key) => key.resources)!;
const storedShape = {
  resources: record.resources,
} as unknown as Parameters<typeof resourceCheck.check>[0];
const kit = {
  refuse: () => {
    throw new Error("the bench expects the check to admit");
  },
  warnOnce: () => {},
};
const checkAlone = interleaved({
  check: () => resourceCheck.check(storedShape, { scopes, route, resource }, kit),
});
console.log(
  `the resource check alone: ${checkAlone.check!.toFixed(1)} ns a call (${((checkAlone.check! / medians.without!) * 100).toFixed(1)} % of verify() without resource)`,
);

summary(() => {
  group("verify() on memory with permissions(): a resource-limited key", () => {
    bench("without resource", async () =>
      do_not_optimize(await keyward.verify(limited, { scopes, route, resource: undefined })),
    ).baseline(true);
    bench("with resource: { profile }", async () =>
      do_not_optimize(await keyward.verify(limited, { scopes, route, resource })),
    );
    bench("a key without resources, with resource", async () =>
      do_not_optimize(await keyward.verify(unlimitedKey, { scopes, route, resource })),
    );
  });
});
