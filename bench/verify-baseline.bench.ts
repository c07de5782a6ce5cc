/**
 * `keyward.verify()` on the memory store against the same call at an earlier commit, in one run:
 * the "no slower than before" check every change to the hot path owes. Same config, same key shape,
 * same options, both admitted; once with no feature listed and once with every feature a host can
 * list in core (organizations, lifecycle, events, OpenAPI), configured as the baseline configured
 * them (as options of `createKeyward` before they were features). Set the commit with
 * `KEYWARD_BASELINE` (default `HEAD~1`).
 *
 * @example
 * KEYWARD_BASELINE=main npx pnpm@10 bench verify-baseline.bench.ts
 */
import { createKeyward, type KeywardFeature, memoryStore } from "@keyward/core";
import { events } from "@keyward/core/events";
import { lifecycle } from "@keyward/core/lifecycle";
import { openapi } from "@keyward/core/openapi";
import { organizations } from "@keyward/core/organizations";
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

const memberships = () => [];
const environments = { live: "sk_live_", test: "sk_test_" };

/** Every feature, as this tree lists them. */
const everyFeature: KeywardFeature<string, unknown>[] = [
  organizations({ memberships }),
  lifecycle({ gracefulRotation: true }),
  events({ pruneIntervalMs: false, expiring: false }),
  openapi(),
];

/** The same, as the baseline takes them: its feature functions, or its options before them. */
async function baselineEveryFeature(): Promise<Record<string, unknown>> {
  const [lifecycleEntry, eventsEntry, openapiEntry, organizationsEntry] = await Promise.all(
    ["lifecycle", "events", "openapi", "organizations"].map((entry) => baseline.feature(entry)),
  );
  if (lifecycleEntry && eventsEntry && openapiEntry && organizationsEntry) {
    const call = (entry: Record<string, unknown>, name: string, options?: unknown) =>
      (entry[name] as (options?: unknown) => unknown)(options);
    // Environments were lifecycle()'s option, then the kernel's (`keys.environments`).
    let lifecycleFeature: unknown;
    let keys: { environments: typeof environments } | undefined;
    try {
      lifecycleFeature = call(lifecycleEntry, "lifecycle", {
        gracefulRotation: true,
        environments,
      });
    } catch {
      lifecycleFeature = call(lifecycleEntry, "lifecycle", { gracefulRotation: true });
      keys = { environments };
    }
    return {
      features: [
        call(organizationsEntry, "organizations", { memberships }),
        lifecycleFeature,
        call(eventsEntry, "events", { pruneIntervalMs: false, expiring: false }),
        call(openapiEntry, "openapi"),
      ],
      ...(keys ? { keys } : {}),
    };
  }
  return {
    organizations: { memberships },
    keyUpdates: true,
    gracefulRotation: true,
    environments,
    events: { pruneIntervalMs: false, expiring: false },
  };
}

async function prepare(
  make: typeof createKeyward,
  store: ReturnType<typeof memoryStore>,
  extra: Record<string, unknown> = {},
) {
  const keyward = make({ ...config, ...extra, store } as Parameters<typeof createKeyward>[0]);
  const { key } = await keyward.keys.create(keyInput);
  const header = `Bearer ${key}`;
  const check = await keyward.verify(header, verifyOptions);
  if (!check.ok) throw new Error(`refused the bench key: ${check.error.detail}`);
  return () => keyward.verify(header, verifyOptions);
}

const baselineMake = baseline.createKeyward as typeof createKeyward;
const baselineStore = () => baseline.memoryStore() as ReturnType<typeof memoryStore>;
const current = await prepare(createKeyward, memoryStore());
const before = await prepare(baselineMake, baselineStore());
const currentEvery = await prepare(createKeyward, memoryStore(), {
  features: everyFeature,
  keys: { environments },
});
const beforeEvery = await prepare(baselineMake, baselineStore(), await baselineEveryFeature());
const commit = baseline.commit.slice(0, 7);

/**
 * The two sides of one comparison. Measured in the order `KEYWARD_BENCH_ORDER` gives (`before` first
 * by default, `after` first with `after-first`): the side measured second runs on a process that
 * has done more work (JIT, heap), and an A/A run (`KEYWARD_BASELINE=HEAD`) shows that bias, so a
 * claim is checked in both orders.
 */
function compare(title: string, beforeCall: () => unknown, afterCall: () => unknown) {
  const sides = [
    () =>
      bench(`before: ${baselineRef}`, async () => do_not_optimize(await beforeCall())).baseline(
        true,
      ),
    () => bench("after: this tree", async () => do_not_optimize(await afterCall())),
  ];
  if (process.env.KEYWARD_BENCH_ORDER === "after-first") sides.reverse();
  summary(() => {
    group(title, () => {
      for (const side of sides) side();
    });
  });
}

compare(`verify() on memory, no feature: this tree vs ${baselineRef} (${commit})`, before, current);
compare(
  `verify() on memory, every feature: this tree vs ${baselineRef} (${commit})`,
  beforeEvery,
  currentEvery,
);
