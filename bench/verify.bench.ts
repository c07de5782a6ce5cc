/**
 * The verification hot path: `keyward.verify()` on the memory store (parse, hash, lookup, expiry,
 * scope, rate limit, usage), beside better-auth's `verifyApiKey` (the @better-auth/api-key plugin on
 * its memory adapter) doing the same job: key lookup, permission check, rate limit, usage counter.
 * Both run in the same process, in the same mitata run, with the floor any verification has to pay
 * (one SHA-256 of the key and one map lookup) and mitata's own cost of an async call.
 *
 * In one process, Keyward pays for better-auth's `AsyncLocalStorage` on every promise (see
 * support/verify-subjects.ts); `npx pnpm@10 bench:verify` (verify/isolated.ts) times each side in a
 * process of its own, alternated, and is the comparison docs/benchmarks.md reports.
 */
import { hash } from "node:crypto";
import { bench, do_not_optimize, group, summary } from "mitata";
import { betterAuthSubject, keywardSubject } from "./support/verify-subjects.js";

const keyward = await keywardSubject();
const betterAuth = await betterAuthSubject();

// The floor of any verification: the key's SHA-256 (what the default hasher does without a pepper)
// and one map lookup by it, nothing else: no parsing, no rate limit, no usage, no promise.
const floorKeys = new Map([[hash("sha256", keyward.key, "hex"), { id: "bench" }]]);
if (!floorKeys.get(hash("sha256", keyward.key, "hex")))
  throw new Error("the floor's lookup missed");

summary(() => {
  group("verify an API key (memory store, scope + rate limit + usage)", () => {
    // What mitata itself costs per async iteration, so the figures below can be read net of it.
    bench("async no-op (harness overhead)", async () => do_not_optimize(await Promise.resolve(1)));
    bench("floor: SHA-256 + Map lookup (sync)", () =>
      do_not_optimize(floorKeys.get(hash("sha256", keyward.key, "hex"))),
    );
    bench("keyward verify()", async () => do_not_optimize(await keyward.verify())).baseline(false);
    bench("better-auth verifyApiKey()", async () =>
      do_not_optimize(await betterAuth.verify()),
    ).baseline(true);
  });
});
