/**
 * `keyward.verify()` with events on against the same call with events off, in one run: events are
 * written with key changes, never on the verification path, so the two should not differ. Memory
 * store, same key shape, same options, both admitted. The layered groups add an owner quota and
 * per-key credits far from any threshold: with events on, verify looks at their outcome for a
 * `quota.threshold` or `credits.exhausted` crossing, which must cost nothing measurable. For the comparison with an earlier commit
 * (events off), see `verify-baseline.bench.ts`.
 *
 * @example
 * npx pnpm@10 bench events.bench.ts
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { type EventsConfig, events } from "@keyward/core/events";
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

/** Far from 80 %: no request of the bench crosses a threshold. */
const huge = 1_000_000_000_000;
const layeredTiers = {
  free: { ...unlimited, quota: { limit: huge, period: "month" as const } },
  pro: { ...unlimited, quota: { limit: huge, period: "month" as const } },
};

/** Events on with `eventsConfig`, off without. */
async function prepare(eventsConfig: EventsConfig | undefined, layered = false) {
  const keyward = createKeyward({
    ...config,
    ...(layered ? { tiers: layeredTiers } : {}),
    store: memoryStore(),
    features: eventsConfig === undefined ? [] : [events(eventsConfig)],
  });
  const { key, id } = await keyward.keys.create(keyInput);
  // A key with some history, as a real one has.
  await keyward.keys.rotate("alice", id);
  const { key: current } = await keyward.keys.rotate("alice", id);
  if (layered) await keyward.keys.setLimits(id, { credits: { remaining: huge } });
  const header = `Bearer ${current ?? key}`;
  const check = await keyward.verify(header, verifyOptions);
  if (!check.ok) throw new Error(`refused the bench key: ${check.error.detail}`);
  return () => keyward.verify(header, verifyOptions);
}

const off = await prepare(undefined);
// The expiry scan's timer is the instance's own background work, off the request path; off here so
// that only verification is measured.
const eventsOn = { retainDays: 90, expiring: { scanIntervalMs: false as const } };
const on = await prepare(eventsOn);
const layeredOff = await prepare(undefined, true);
const layeredOn = await prepare(eventsOn, true);
// All warmed alike first, so the first bench does not pay for the JIT alone.
for (let i = 0; i < 20_000; i++) {
  await off();
  await on();
  await layeredOff();
  await layeredOn();
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
summary(() => {
  group("verify() on memory, quota and credits not crossing: events off, then on", () => {
    bench("layered, events off", async () => do_not_optimize(await layeredOff())).baseline(true);
    bench("layered, events on", async () => do_not_optimize(await layeredOn()));
  });
});
summary(() => {
  group("verify() on memory, quota and credits not crossing: events on, then off", () => {
    bench("layered, events on ", async () => do_not_optimize(await layeredOn()));
    bench("layered, events off ", async () => do_not_optimize(await layeredOff())).baseline(true);
  });
});
