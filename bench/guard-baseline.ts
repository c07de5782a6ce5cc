/**
 * What an HTTP guard asks of Keyward per request, in the demo's configuration, against the same at
 * an earlier commit and against the floor, in one process: the route label (`routeWithMethod`),
 * the options literal and `verifyPending` (no promise on the memory store), as the Fastify guard
 * calls them, with the features the demo lists that are on the verification path (lifecycle's
 * allowlist check, permissions' resource check and recorded address, `otel()`'s observer, imports,
 * events, organizations). The floor is the `floor` variant of `bench/http`: SHA-256 of the token
 * and a `Map` lookup.
 *
 * Without sockets or a framework, no load generator competes for the CPU, so on a shared machine
 * the guard's own cost is easier to see than in `bench/http` (which measures the whole server).
 * Sides: the floor; both trees with the demo's path features; this tree without `otel()` (what the
 * observer of every verification costs); both trees with no feature.
 * Rounds of `KEYWARD_GUARD_CALLS` calls per side, the sides' order reversed every round (so each
 * side is measured first as often as second), medians over `KEYWARD_GUARD_ROUNDS` rounds.
 *
 * @example
 * KEYWARD_BASELINE=1a68075 npx pnpm@10 --filter @keyward/bench exec node --conditions=@keyward/source --import tsx guard-baseline.ts
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createKeyward, type KeywardFeature, memoryStore } from "@keyward/core";
import { events } from "@keyward/core/events";
import { imports } from "@keyward/core/imports";
import { lifecycle } from "@keyward/core/lifecycle";
import { organizations } from "@keyward/core/organizations";
import { permissions } from "@keyward/core/permissions";
import { routeWithMethod, verifyPending } from "@keyward/core/toolkit";
import { otel } from "@keyward/otel";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { floorCheck } from "./http/servers/variant.js";
import { importBaselineCore } from "./support/baseline-core.js";

const baselineRef = process.env.KEYWARD_BASELINE ?? "HEAD";
const rounds = Number(process.env.KEYWARD_GUARD_ROUNDS ?? 60);
const calls = Number(process.env.KEYWARD_GUARD_CALLS ?? 20_000);
const baseline = await importBaselineCore(baselineRef);
const baselineRoot = join(
  (await import("node:os")).tmpdir(),
  `keyward-baseline-${baseline.commit.slice(0, 12)}`,
);
const baselineToolkit = (await import(
  pathToFileURL(join(baselineRoot, "packages/core/src/toolkit.ts")).href
)) as { routeWithMethod: typeof routeWithMethod };

const unlimited = { rateLimit: { limit: 1_000_000_000, window: "1m" } };
const scopes = { "profile:read": "Read profiles", "profile:write": "Edit profiles" };
const environments = { live: "sk_live_", test: "sk_test_" };
const template = "/api/v1/profiles/:slug";
const meterProvider = new MeterProvider();

type FeatureFactory = (options?: unknown) => unknown;
// `@keyward/otel` as the baseline had it, on the baseline's core: a feature is built on the feature
// interface of its own commit.
const baselineOtel = (await baseline.workspacePackage("otel")).otel as FeatureFactory;
/** The verification path's features, from one core's entry points (`otel()` unless told not). */
function pathFeatures(entry: (name: string) => FeatureFactory, withOtel = true): unknown[] {
  const isCurrent = entry === currentEntry;
  const observer = isCurrent ? (otel as FeatureFactory) : baselineOtel;
  return [
    entry("organizations")({ memberships: () => [] }),
    // This tree takes the environments in `keys.environments` (guardCall); a baseline from before
    // that, in lifecycle(): given both, each reads its own.
    entry("lifecycle")(
      isCurrent || !baselineNames.environmentsInLifecycle
        ? { gracefulRotation: true }
        : { environments, gracefulRotation: true },
    ),
    entry("events")({ pruneIntervalMs: false, expiring: false }),
    entry("imports")({ prefixes: ["ba_"] }),
    ...(withOtel ? [observer({ meterProvider })] : []),
    // The last client address: `lastUsedAddress` here, `recordAddress` before the renames.
    entry("permissions")(
      isCurrent || !baselineNames.recordAddress
        ? { lastUsedAddress: true }
        : { recordAddress: true },
    ),
  ];
}

const current: Record<string, FeatureFactory> = {
  organizations: organizations as FeatureFactory,
  lifecycle: lifecycle as FeatureFactory,
  events: events as FeatureFactory,
  imports: imports as FeatureFactory,
  permissions: permissions as FeatureFactory,
};
const baselineEntries: Record<string, FeatureFactory> = {};
for (const name of ["organizations", "lifecycle", "events", "imports", "permissions"]) {
  const entry = await baseline.feature(name);
  if (!entry) throw new Error(`${baselineRef} has no ${name} feature`);
  baselineEntries[name] = entry[name] as FeatureFactory;
}

/** Whether a baseline factory takes `options` (a feature refuses options it does not know). */
function takes(factory: FeatureFactory, options: unknown): boolean {
  try {
    factory(options);
    return true;
  } catch {
    return false;
  }
}
/** Which names the baseline has, from before the renames of `1a68075`'s round or after them. */
const baselineNames = {
  environmentsInLifecycle: takes(baselineEntries.lifecycle!, { environments }),
  recordAddress: takes(baselineEntries.permissions!, { recordAddress: true }),
};

async function guardCall(
  make: typeof createKeyward,
  features: unknown[],
  label: typeof routeWithMethod,
): Promise<{ call: () => unknown; authorization: string }> {
  const keyward = make({
    store: (make === createKeyward ? memoryStore : baseline.memoryStore)(),
    scopes,
    tiers: { free: unlimited },
    ...((make === createKeyward || !baselineNames.environmentsInLifecycle) && features.length > 0
      ? { keys: { environments } }
      : {}),
    logger: false,
    features: features as KeywardFeature<string, unknown>[],
  } as Parameters<typeof createKeyward>[0]);
  const { key } = await keyward.keys.create({
    ownerId: "bench-owner",
    accountTier: "free",
    name: "guard bench",
    scopes: ["profile:read"],
    tier: "free",
  });
  const authorization = `Bearer ${key}`;
  const required = ["profile:read"];
  const call = () => {
    // As the Fastify guard builds them per request.
    const route = label("GET", template);
    const options = {
      scopes: required,
      accept: undefined,
      route,
      clientIp: "127.0.0.1",
      cost: undefined,
      environment: undefined,
      resource: undefined,
    };
    const decided = verifyPending(keyward, authorization, options) as { ok?: boolean };
    if (decided.ok !== true) throw new Error("the guard refused the bench key");
    return decided;
  };
  return { call, authorization };
}

const currentEntry = (name: string) => current[name]!;
const after = await guardCall(createKeyward, pathFeatures(currentEntry), routeWithMethod);
const before = await guardCall(
  baseline.createKeyward as typeof createKeyward,
  pathFeatures((name) => baselineEntries[name]!),
  baselineToolkit.routeWithMethod,
);
// This tree without `otel()`: what the observer of every verification costs, in the same run.
const afterNoOtel = await guardCall(
  createKeyward,
  pathFeatures(currentEntry, false),
  routeWithMethod,
);
// Both trees with no feature listed: the kernel's path alone.
const afterBare = await guardCall(createKeyward, [], routeWithMethod);
const beforeBare = await guardCall(
  baseline.createKeyward as typeof createKeyward,
  [],
  baselineToolkit.routeWithMethod,
);
const floor = floorCheck(after.authorization);
const sides: Record<string, () => unknown> = {
  floor: () => floor(after.authorization),
  before: before.call,
  after: after.call,
  "after, no otel": afterNoOtel.call,
  "before, none": beforeBare.call,
  "after, none": afterBare.call,
};

const timeRound = (call: () => unknown) => {
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) call();
  return Number(process.hrtime.bigint() - started) / calls;
};
for (const call of Object.values(sides)) for (let warm = 0; warm < 5; warm++) timeRound(call);

const times: Record<string, number[]> = Object.fromEntries(
  Object.keys(sides).map((name) => [name, [] as number[]]),
);
const ratios: number[] = [];
const bareRatios: number[] = [];
for (let round = 0; round < rounds; round++) {
  const order = Object.keys(sides);
  if (round % 2 === 1) order.reverse();
  const measured: Record<string, number> = {};
  for (const name of order) measured[name] = timeRound(sides[name]!);
  for (const name of order) times[name]!.push(measured[name]!);
  ratios.push(measured.after! / measured.before!);
  bareRatios.push(measured["after, none"]! / measured["before, none"]!);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const { loadavg } = await import("node:os");
console.log(
  `guard's work per request, demo's path features, ${rounds} rounds of ${calls} calls, load ${loadavg()[0]!.toFixed(1)}`,
);
for (const [name, values] of Object.entries(times)) {
  console.log(
    `${name.padEnd(15)} median ${median(values).toFixed(0)} ns, min ${Math.min(...values).toFixed(0)} ns`,
  );
}
console.log(
  `after ÷ before (${baselineRef}), median of the rounds' ratios: demo's path ${median(ratios).toFixed(3)}, no feature ${median(bareRatios).toFixed(3)}`,
);
console.log(
  `medians: before − floor ${(median(times.before!) - median(times.floor!)).toFixed(0)} ns, after − floor ${(median(times.after!) - median(times.floor!)).toFixed(0)} ns, after − after without otel ${(median(times.after!) - median(times["after, no otel"]!)).toFixed(0)} ns`,
);
process.exit(0);
