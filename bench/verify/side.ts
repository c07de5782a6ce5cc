/**
 * One side of `verify/isolated.ts`, in a process of its own: times one subject's verification with
 * mitata and prints its statistics as one JSON line on stdout.
 *
 * @example
 * node --conditions=@keyward/source --import tsx verify/side.ts keyward
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { bench, do_not_optimize, run } from "mitata";
import { betterAuthSubject, keywardSubject, type VerifyOnce } from "../support/verify-subjects.js";

/** What each side can be. `keyward-als`: Keyward with a context store active, as beside better-auth. */
export const sides = ["keyward", "better-auth", "keyward-als"] as const;
export type Side = (typeof sides)[number];

export interface SideStats {
  side: Side;
  /** Nanoseconds per verification. */
  avg: number;
  p50: number;
  p75: number;
  p99: number;
  min: number;
  /** Bytes allocated per verification, as mitata estimates them. */
  bytes: number | undefined;
}

const side = process.argv[2] as Side;
if (!sides.includes(side)) throw new Error(`side must be one of ${sides.join(", ")}`);

let verify: VerifyOnce;
if (side === "better-auth") {
  verify = (await betterAuthSubject()).verify;
} else {
  verify = (await keywardSubject()).verify;
  // What better-auth's own AsyncLocalStorage does to every promise in a process that loads it.
  if (side === "keyward-als") new AsyncLocalStorage().enterWith({ request: "bench" });
}

bench(side, async () => do_not_optimize(await verify()));
// biome-ignore lint/suspicious/noExplicitAny: mitata's quiet run returns its results untyped.
const results = (await run({ format: "quiet" } as never)) as any;
const stats = results.benchmarks[0].runs[0].stats;
const line: SideStats = {
  side,
  avg: stats.avg,
  p50: stats.p50,
  p75: stats.p75,
  p99: stats.p99,
  min: stats.min,
  bytes: stats.heap?.avg,
};
console.log(JSON.stringify(line));
