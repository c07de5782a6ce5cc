/**
 * What every HTTP benchmark server shares: the variant it runs, the Keyward instance behind the
 * guard, the rate-limit headers the "headers" variant sends, and the line that tells the runner
 * where to send requests. Runs on Node, Bun and Deno (only `process` and `@keyward/core`, and the
 * demo's package when `HTTP_BENCH_FEATURES=every`).
 */
import { createKeyward, type Keyward, memoryStore } from "@keyward/core";
import { createSecretHasher } from "@keyward/core/toolkit";

/**
 * - `bare`: the route alone;
 * - `headers`: the route, sending three `X-RateLimit-*` headers like the guard's (what the headers
 *   alone cost, without any limiting);
 * - `floor`: the least any guard that checks a key must do, in the framework's usual hook: hash
 *   the bearer token (SHA-256, as Keyward), look the hash up in a `Map`, send the three headers. No
 *   parsing, no checksum, no rate limit, no usage, no scopes: what no key guard can go below;
 * - `guard`: Keyward's guard in front of the route (memory store, a valid key);
 * - `limiter`: the framework's usual rate limiter in front of the route (none for Fetch).
 */
export const variants = ["bare", "headers", "floor", "guard", "limiter"] as const;
export type Variant = (typeof variants)[number];

export function variantFromEnv(): Variant {
  const variant = process.env.HTTP_BENCH_VARIANT as Variant | undefined;
  if (!variant || !variants.includes(variant)) {
    throw new Error(`HTTP_BENCH_VARIANT must be one of ${variants.join(", ")}`);
  }
  return variant;
}

/** The guarded route, as each framework writes its template. */
export const routePath = "/api/v1/profiles/:slug";
export const requiredScopes = ["profile:read"];
/** High enough that no request of a run is ever refused: every variant measures admitted requests. */
export const neverRefused = 1_000_000_000;

/**
 * The features the guard's instance lists: none (`HTTP_BENCH_FEATURES` unset), or with
 * `HTTP_BENCH_FEATURES=every` the demo's own list (`demoFeatures` of `@keyward/example-demo`, with
 * its OpenTelemetry meter provider read by the Prometheus exporter, as `GET /metrics` reads it), so
 * that the guard is measured in a server configured as the demo is. Loaded only then: the demo's
 * package brings drivers and the OpenTelemetry SDK that the other runs do not need.
 */
async function benchFeatures() {
  if (process.env.HTTP_BENCH_FEATURES !== "every") return { features: [], scopes: undefined };
  const demo = await import("@keyward/example-demo");
  const metrics = demo.createDemoMetrics();
  return {
    features: demo.demoFeatures(demo.loadDemoConfig({}), { meterProvider: metrics.meterProvider }),
    scopes: demo.DEMO_SCOPE_DESCRIPTIONS,
  };
}

/** A Keyward instance on the memory store, and a valid key's `Authorization` value. */
export async function benchKeyward(): Promise<{ keyward: Keyward; authorization: string }> {
  const unlimited = { rateLimit: { limit: neverRefused, window: "1m" } };
  const { features, scopes } = await benchFeatures();
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: scopes ?? { "profile:read": "Read profiles" },
    tiers: { free: unlimited },
    logger: false,
    features,
  });
  const { key } = await keyward.keys.create({
    ownerId: "bench-owner",
    accountTier: "free",
    name: "http bench",
    scopes: requiredScopes,
    tier: "free",
  });
  return { keyward, authorization: `Bearer ${key}` };
}

/**
 * The `floor` variant's check: true when `authorization` is `Bearer <the bench key>`, found by the
 * SHA-256 of the token in a `Map`, as a store lookup would be.
 */
export function floorCheck(authorization: string): (header: string | undefined) => boolean {
  const hasher = createSecretHasher();
  const known = new Map([[hasher.hash(authorization.slice("Bearer ".length)), "bench-key"]]);
  return (header) =>
    header?.startsWith("Bearer ") === true &&
    known.has(hasher.hash(header.slice("Bearer ".length)));
}

/**
 * The three headers the guard sends on an admitted request, with values of the same shape: what a
 * route that sets them itself pays to send them.
 */
export function staticRateLimitHeaders(): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(neverRefused),
    "X-RateLimit-Remaining": String(neverRefused - 1),
    "X-RateLimit-Reset": String(Math.ceil(Date.now() / 1000) + 60),
  };
}

/** The one line the runner waits for on stdout before it sends any request. */
export async function announceReady(port: number, authorization: string): Promise<void> {
  const profileFile = process.env.HTTP_BENCH_PROFILE_FILE;
  if (profileFile) await profileBetweenSignals(profileFile);
  else process.once("SIGTERM", () => process.exit(0));
  console.log(JSON.stringify({ ready: true, port, authorization }));
}

/**
 * A V8 CPU profile of the measurement alone: started on SIGUSR2 (the runner sends it after the
 * warm-up), written to `file` on SIGTERM. Startup (module loading, schema compilation) would
 * otherwise outweigh the requests in a `--cpu-prof` profile. Node only.
 */
async function profileBetweenSignals(file: string): Promise<void> {
  const { Session } = await import("node:inspector");
  const { writeFileSync } = await import("node:fs");
  const session = new Session();
  session.connect();
  const post = (method: string) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, (error, result) => (error ? reject(error) : resolve(result))),
    );
  await post("Profiler.enable");
  process.once("SIGUSR2", () => void post("Profiler.start"));
  process.once("SIGTERM", async () => {
    const { profile } = (await post("Profiler.stop")) as { profile: unknown };
    writeFileSync(file, JSON.stringify(profile));
    process.exit(0);
  });
}
