/**
 * `keyward.verify()` with events on against the same call with events off, in one run: events are
 * written with key changes, never on the verification path, so the two should not differ. Memory
 * store, same key shape, same options, both admitted. For the comparison with an earlier commit
 * (events off), see `verify-baseline.bench.ts`.
 *
 * @example
 * npx pnpm@10 bench events.bench.ts
 */
import { createKeyward, type KeywardConfig, memoryStore } from "@keyward/core";
import { bench, do_not_optimize, group, summary } from "mitata";

const unlimited = { rateLimit: { limit: 1_000_000_000, window: "1m" } };
const config = {
  scopes: { "profile:read": "Read profiles", "profile:write": "Edit profiles" },
  tiers: { free: unlimited, pro: unlimited },
  jwt: false as const,
};
const verifyOptions = { scopes: ["profile:read"], route: "GET /api/v1/profiles/:slug" };
const keyInput = {
  ownerId: "alice",
  accountTier: "pro",
  name: "bench",
  scopes: ["profile:read"],
  tier: "pro",
};

async function prepare(events: KeywardConfig["events"]) {
  const keyward = createKeyward({ ...config, store: memoryStore(), events });
  const { key, id } = await keyward.keys.create(keyInput);
  // A key with some history, as a real one has.
  await keyward.keys.rotate("alice", id);
  const { key: current } = await keyward.keys.rotate("alice", id);
  const header = `Bearer ${current ?? key}`;
  const check = await keyward.verify(header, verifyOptions);
  if (!check.ok) throw new Error(`refused the bench key: ${check.error.detail}`);
  return () => keyward.verify(header, verifyOptions);
}

const off = await prepare(undefined);
const on = await prepare({ retainDays: 90 });
// Both warmed alike first, so the first bench does not pay for the JIT alone.
for (let i = 0; i < 20_000; i++) {
  await off();
  await on();
}

// Both orders: on a busy machine whichever runs first in a group tends to read slower.
summary(() => {
  group("verify() on memory: events off, then on", () => {
    bench("events off", async () => do_not_optimize(await off())).baseline(true);
    bench("events on", async () => do_not_optimize(await on()));
  });
});
summary(() => {
  group("verify() on memory: events on, then off", () => {
    bench("events on ", async () => do_not_optimize(await on()));
    bench("events off ", async () => do_not_optimize(await off())).baseline(true);
  });
});
