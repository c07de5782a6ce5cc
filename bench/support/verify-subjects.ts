/**
 * The two sides of the verification comparison, set up the same way wherever they are timed
 * (`verify.bench.ts` in one process, `verify/isolated.ts` each in its own): Keyward's `verify()` on
 * the memory store, and better-auth's `verifyApiKey` (the @better-auth/api-key plugin on its memory
 * adapter) doing the same job: key lookup, permission check, rate limit, usage counter. Each is
 * checked to admit its key before it is handed out, or the comparison would be of two refusals.
 * better-auth is imported only when asked for: loading it switches on `AsyncLocalStorage`, which
 * taxes every promise in the process, Keyward's too (docs/benchmarks.md, "Verification").
 */
import { createKeyward, type Keyward, memoryStore } from "@keyward/core";

/** One verification, admitted; what a benchmark times. */
export type VerifyOnce = () => Promise<unknown>;

// Limits high enough that no run is ever refused: the benchmark measures admitted requests.
const unlimited = { rateLimit: { limit: 1_000_000_000, window: "1m" } };
const secret = "bench-secret-with-at-least-thirty-two-bytes";

/** The options of the scoped route every verification bench calls. */
export const benchVerifyOptions = { scopes: ["profile:read"], route: "GET /api/v1/profiles/:slug" };

/**
 * Alice's `pro` key with `profile:read`, created on `keyward` and checked to be admitted on the
 * bench route, or the benchmark would time refusals.
 */
export async function admittedBenchKey(keyward: Keyward): Promise<{ key: string; header: string }> {
  const { key } = await keyward.keys.create({
    ownerId: "alice",
    accountTier: "pro",
    name: "bench",
    scopes: ["profile:read"],
    tier: "pro",
  });
  const header = `Bearer ${key}`;
  const check = await keyward.verify(header, benchVerifyOptions);
  if (!check.ok) throw new Error(`keyward refused the bench key: ${check.error.detail}`);
  return { key, header };
}

export async function keywardSubject(): Promise<{ verify: VerifyOnce; key: string }> {
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "profile:read": "Read profiles", "profile:write": "Edit profiles" },
    tiers: { free: unlimited, pro: unlimited },
    jwt: { secret },
  });
  const { key, header } = await admittedBenchKey(keyward);
  return { verify: () => keyward.verify(header, benchVerifyOptions), key };
}

export async function betterAuthSubject(): Promise<{ verify: VerifyOnce }> {
  const [{ apiKey }, { betterAuth }, { memoryAdapter }] = await Promise.all([
    import("@better-auth/api-key"),
    import("better-auth"),
    import("better-auth/adapters/memory"),
  ]);
  const database: Record<string, unknown[]> = {
    user: [],
    session: [],
    account: [],
    verification: [],
    apikey: [],
  };
  const auth = betterAuth({
    database: memoryAdapter(database),
    secret,
    logger: { disabled: true },
    // The plugin (1.7.5) is typed against a different @better-auth/utils than better-auth (1.7.25);
    // they work together at run time, the types just do not line up.
    plugins: [
      apiKey({
        rateLimit: { enabled: true, timeWindow: 60_000, maxRequests: 1_000_000_000 },
      }) as never,
    ],
  });
  // biome-ignore lint/suspicious/noExplicitAny: see above; only the bench touches these internals.
  const context = (await auth.$context) as any;
  const user = await context.internalAdapter.createUser({
    email: "alice@example.com",
    name: "alice",
    emailVerified: true,
  });
  // biome-ignore lint/suspicious/noExplicitAny: the plugin's endpoints are not on the base type.
  const api = auth.api as any;
  const key: string = (
    await api.createApiKey({
      body: { userId: user.id, name: "bench", permissions: { profile: ["read"] } },
    })
  ).key;
  const body = { body: { key, permissions: { profile: ["read"] } } };
  const check = await api.verifyApiKey(body);
  if (!check.valid) throw new Error("better-auth refused the bench key");
  return { verify: () => api.verifyApiKey(body) };
}
