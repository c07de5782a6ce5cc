/**
 * Keyward's `verify()` against better-auth's `verifyApiKey`, each side in a process of its own,
 * alternated round by round under the same machine conditions, medians over the rounds. Why not
 * one process (`verify.bench.ts` still does that): better-auth switches on `AsyncLocalStorage`
 * when it loads, and on Node 20 that hooks every promise in the process, so Keyward beside it pays
 * for better-auth's request context on each `await` (the `keyward-als` side shows how much).
 *
 * @example
 * npx pnpm@10 bench:verify                          # 3 rounds of keyward, better-auth, keyward-als
 * VERIFY_BENCH_ROUNDS=5 npx pnpm@10 bench:verify
 */
import { execFileSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "../redis-closed-loop.js";
import type { Side, SideStats } from "./side.js";

const here = dirname(fileURLToPath(import.meta.url));
const rounds = Number(process.env.VERIFY_BENCH_ROUNDS ?? 3);
if (!Number.isSafeInteger(rounds) || rounds < 1) {
  throw new Error(
    `VERIFY_BENCH_ROUNDS must be a whole number ≥ 1, got ${process.env.VERIFY_BENCH_ROUNDS}`,
  );
}
const order: Side[] = ["keyward", "better-auth", "keyward-als"];

const runSide = (side: Side): SideStats => {
  const output = execFileSync(
    process.execPath,
    ["--conditions=@keyward/source", "--import", "tsx", join(here, "side.ts"), side],
    { cwd: join(here, ".."), encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  );
  const line = output.trim().split("\n").at(-1);
  if (!line) throw new Error(`the ${side} side printed nothing`);
  return JSON.parse(line) as SideStats;
};

const micro = (ns: number) => `${(ns / 1_000).toFixed(2)} µs`;

console.log(
  `node ${process.version}, ${cpus().length}× ${cpus()[0]?.model ?? "?"}, load ${loadavg()[0]!.toFixed(2)}; ${rounds} rounds of ${order.join(", ")}`,
);
const bySide = new Map<Side, SideStats[]>(order.map((side) => [side, []]));
for (let round = 1; round <= rounds; round++) {
  const cells: string[] = [];
  for (const side of order) {
    const stats = runSide(side);
    bySide.get(side)!.push(stats);
    cells.push(`${side} ${micro(stats.avg)} (p50 ${micro(stats.p50)})`);
  }
  const [keyward, betterAuth] = [
    bySide.get("keyward")!.at(-1)!,
    bySide.get("better-auth")!.at(-1)!,
  ];
  console.log(
    `round ${round}: ${cells.join(", ")}; better-auth ÷ keyward ${(betterAuth.avg / keyward.avg).toFixed(0)}×`,
  );
}

console.log("\nmedian over the rounds (mitata's average per verification; p50; bytes allocated)");
for (const side of order) {
  const all = bySide.get(side)!;
  const bytes = all.map((stats) => stats.bytes ?? Number.NaN);
  console.log(
    `  ${side.padEnd(12)} ${micro(median(all.map((stats) => stats.avg))).padStart(11)}  p50 ${micro(median(all.map((stats) => stats.p50)))}  ${median(bytes).toFixed(0)} B`,
  );
}
const ratios = bySide
  .get("keyward")!
  .map((keyward, index) => bySide.get("better-auth")![index]!.avg / keyward.avg);
console.log(
  `better-auth ÷ keyward, per round: ${ratios.map((ratio) => `${ratio.toFixed(0)}×`).join(", ")}; median ${median(ratios).toFixed(0)}×`,
);
