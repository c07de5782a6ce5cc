/**
 * The verification hot path: `keyward.verify()` on the memory store (parse, hash, lookup, expiry,
 * scope, rate limit, usage), beside better-auth's `verifyApiKey` (the @better-auth/api-key plugin on
 * its memory adapter) doing the same job: key lookup, permission check, rate limit, usage counter.
 * Both run in the same process, in the same mitata run, with the floor any verification has to pay
 * (one SHA-256 of the key and one map lookup) and mitata's own cost of an async call.
 */
import { hash } from "node:crypto";
import { apiKey } from "@better-auth/api-key";
import { createKeyward, memoryStore } from "@keyward/core";
import { betterAuth } from "better-auth";
import { memoryAdapter } from "better-auth/adapters/memory";
import { bench, do_not_optimize, group, summary } from "mitata";

// Limits high enough that no run is ever refused: the benchmark measures admitted requests.
const unlimited = { rateLimit: { limit: 1_000_000_000, window: "1m" } };

const keyward = createKeyward({
  store: memoryStore(),
  scopes: { "profile:read": "Read profiles", "profile:write": "Edit profiles" },
  tiers: { free: unlimited, pro: unlimited },
  jwt: { secret: "bench-secret-with-at-least-thirty-two-bytes" },
});
const { key } = await keyward.keys.create({
  ownerId: "alice",
  accountTier: "pro",
  name: "bench",
  scopes: ["profile:read"],
  tier: "pro",
});
const header = `Bearer ${key}`;
const verifyOptions = { scopes: ["profile:read"], route: "GET /api/v1/profiles/:slug" };

const database: Record<string, unknown[]> = {
  user: [],
  session: [],
  account: [],
  verification: [],
  apikey: [],
};
const auth = betterAuth({
  database: memoryAdapter(database),
  secret: "bench-secret-with-at-least-thirty-two-bytes",
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
const betterAuthApi = auth.api as any;
const betterAuthKey: string = (
  await betterAuthApi.createApiKey({
    body: { userId: user.id, name: "bench", permissions: { profile: ["read"] } },
  })
).key;
const betterAuthBody = { body: { key: betterAuthKey, permissions: { profile: ["read"] } } };

// Both must accept before they are timed, or the comparison would be of two refusals.
const check = await keyward.verify(header, verifyOptions);
if (!check.ok) throw new Error(`keyward refused the bench key: ${check.error.detail}`);
const betterAuthCheck = await betterAuthApi.verifyApiKey(betterAuthBody);
if (!betterAuthCheck.valid) throw new Error("better-auth refused the bench key");

// The floor of any verification: the key's SHA-256 (what the default hasher does without a pepper)
// and one map lookup by it, nothing else: no parsing, no rate limit, no usage, no promise.
const floorKeys = new Map([[hash("sha256", key, "hex"), { id: "bench" }]]);
if (!floorKeys.get(hash("sha256", key, "hex"))) throw new Error("the floor's lookup missed");

summary(() => {
  group("verify an API key (memory store, scope + rate limit + usage)", () => {
    // What mitata itself costs per async iteration, so the figures below can be read net of it.
    bench("async no-op (harness overhead)", async () => do_not_optimize(await Promise.resolve(1)));
    bench("floor: SHA-256 + Map lookup (sync)", () =>
      do_not_optimize(floorKeys.get(hash("sha256", key, "hex"))),
    );
    bench("keyward verify()", async () =>
      do_not_optimize(await keyward.verify(header, verifyOptions)),
    ).baseline(false);
    bench("better-auth verifyApiKey()", async () =>
      do_not_optimize(await betterAuthApi.verifyApiKey(betterAuthBody)),
    ).baseline(true);
  });
});
