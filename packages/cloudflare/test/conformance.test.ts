/**
 * The storage conformance suite of `@keyward/testing` against `cloudflareStore`, its objects
 * running in workerd (Miniflare). The suite runs in Node and reaches the objects through
 * Miniflare's proxy of the Durable Object binding: vitest cannot run inside workerd on Node 20
 * with vitest 4 (`@cloudflare/vitest-pool-workers` that supports vitest 4 needs Node 22). The probe
 * reads every row of the objects' SQLite tables directly, not through the store's getters.
 */
import { describeStorageConformance } from "@keyward/testing";
import { afterAll, beforeAll } from "vitest";
import { type CloudflareStore, cloudflareStore } from "../src/index.js";
import { startWorkerd, type Workerd } from "./support/miniflare.js";

let workerd: Workerd;
let run = 0;

beforeAll(async () => {
  workerd = await startWorkerd();
}, 60_000);
afterAll(async () => {
  await workerd?.dispose();
});

type Store = CloudflareStore & { prefix: string };

// Limits per key change only where a key's limits are kept: the key, event and webhook sections
// (which never reach a limit object) and the rate-limit section (buckets that are no key's, kept in
// an object of their own either way) run once, with limits per owner.
for (const limitObjects of ["owner", "key"] as const) {
  describeStorageConformance<Store>(`cloudflare (limits per ${limitObjects})`, {
    skipKeys: limitObjects === "key",
    skipRateLimits: limitObjects === "key",
    async createStore() {
      // A prefix per store: every test starts on objects no other test has used.
      run += 1;
      const prefix = `t${process.pid}_${run}_`;
      const store = cloudflareStore({ namespace: await workerd.namespace(), prefix, limitObjects });
      return { ...store, prefix };
    },
    probe: {
      dump: (store) => store.dump(),
      async rawKey(store, id) {
        const dumped = (await store.dump()) as Record<string, { keys: Record<string, unknown>[] }>;
        const rows = dumped[`${store.prefix}keys`]!.keys;
        return rows.find((row) => row.id === id) ?? null;
      },
    },
  });
}
