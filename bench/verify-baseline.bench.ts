/**
 * `keyward.verify()` on the memory store against the same call at an earlier commit, in one run:
 * the "no slower than before" check every change to the hot path owes. Same config, same key shape,
 * same options, both admitted. Set the commit with `KEYWARD_BASELINE` (default `HEAD~1`).
 *
 * @example
 * KEYWARD_BASELINE=main npx pnpm@10 bench verify-baseline.bench.ts
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { bench, do_not_optimize, group, summary } from "mitata";
import { importBaselineCore } from "./support/baseline-core.js";

const baselineRef = process.env.KEYWARD_BASELINE ?? "HEAD~1";
const baseline = await importBaselineCore(baselineRef);

const unlimited = { rateLimit: { limit: 1_000_000_000, window: "1m" } };
const config = {
  scopes: { "profile:read": "Read profiles", "profile:write": "Edit profiles" },
  tiers: { free: unlimited, pro: unlimited },
};
const verifyOptions = { scopes: ["profile:read"], route: "GET /api/v1/profiles/:slug" };
const keyInput = {
  ownerId: "alice",
  accountTier: "pro",
  name: "bench",
  scopes: ["profile:read"],
  tier: "pro",
};

async function prepare(make: typeof createKeyward, store: ReturnType<typeof memoryStore>) {
  const keyward = make({ ...config, store });
  const { key } = await keyward.keys.create(keyInput);
  const header = `Bearer ${key}`;
  const check = await keyward.verify(header, verifyOptions);
  if (!check.ok) throw new Error(`refused the bench key: ${check.error.detail}`);
  return () => keyward.verify(header, verifyOptions);
}

const current = await prepare(createKeyward, memoryStore());
const before = await prepare(
  baseline.createKeyward as typeof createKeyward,
  baseline.memoryStore() as ReturnType<typeof memoryStore>,
);

summary(() => {
  group(`verify() on memory: this tree vs ${baselineRef} (${baseline.commit.slice(0, 7)})`, () => {
    bench(`before: ${baselineRef}`, async () => do_not_optimize(await before())).baseline(true);
    bench("after: this tree", async () => do_not_optimize(await current()));
  });
});
