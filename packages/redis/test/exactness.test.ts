/**
 * Exactness under contention between processes: four worker processes, each with its own
 * connection, hammer one principal at once. Redis runs one script at a time, so however their
 * requests interleave the limit holds exactly:
 *
 * - fixed window and GCRA admit exactly `limit` (a window far longer than the run, so no refill);
 * - the sliding window, on a 500 ms window over ~2.5 s, admits at most `limit` in any aligned window
 *   and at most L + ⌊L(W − 2)/W⌋ in any W consecutive milliseconds (docs/rate-limiting.md), checked
 *   on the decision times the script reports.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RateLimitPolicy } from "@keyward/core";
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExactnessJob } from "./support/exactness-worker.js";
import { localRedis, redisAvailable, testPrefix } from "./support/local-redis.js";
import { deletePrefix } from "./support/scan.js";

const here = dirname(fileURLToPath(import.meta.url));
const packageRoot = join(here, "..");
const workers = 4;

interface WorkerResult {
  sent: number;
  refused: number;
  admitted: number[];
  resets: number[];
}

/** A worker process and its stdout, line by line. */
function startWorker() {
  const child = spawn(
    process.execPath,
    [
      "--conditions=@keyward/source",
      "--import",
      "tsx",
      join(here, "support", "exactness-worker.ts"),
    ],
    { cwd: packageRoot, stdio: ["pipe", "pipe", "inherit"] },
  );
  const received: string[] = [];
  const waiters: { resolve(line: string): void; reject(error: Error): void }[] = [];
  let buffer = "";
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let end = buffer.indexOf("\n"); end !== -1; end = buffer.indexOf("\n")) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      const waiter = waiters.shift();
      if (waiter) waiter.resolve(line);
      else received.push(line);
    }
  });
  child.once("exit", (code) => {
    for (const waiter of waiters.splice(0)) waiter.reject(new Error(`worker exited with ${code}`));
  });
  return {
    child,
    send: (line: string) => child.stdin.write(`${line}\n`),
    next: () =>
      new Promise<string>((resolve, reject) => {
        const line = received.shift();
        if (line !== undefined) resolve(line);
        else if (child.exitCode !== null) reject(new Error("worker has exited"));
        else waiters.push({ resolve, reject });
      }),
  };
}

describe.skipIf(!redisAvailable)(`${workers} processes hammering one principal`, () => {
  let client: IORedis;
  let pool: ReturnType<typeof startWorker>[] = [];
  const prefix = testPrefix("exactness");

  beforeAll(async () => {
    client = new IORedis(localRedis);
    pool = Array.from({ length: workers }, startWorker);
    expect(await Promise.all(pool.map((worker) => worker.next()))).toEqual(
      Array(workers).fill("ready"),
    );
  }, 60_000);
  afterAll(async () => {
    for (const worker of pool) worker.child.kill("SIGKILL");
    await deletePrefix(client, prefix);
    client.disconnect();
  });

  /** Hands every worker the job, releases them together, and collects what each saw. */
  const hammer = async (job: ExactnessJob): Promise<WorkerResult[]> => {
    for (const worker of pool) worker.send(JSON.stringify(job));
    await Promise.all(pool.map((worker) => worker.next()));
    for (const worker of pool) worker.send("go");
    return (await Promise.all(pool.map((worker) => worker.next()))).map(
      (line) => JSON.parse(line) as WorkerResult,
    );
  };

  for (const algorithm of ["fixed-window", "gcra"] as const) {
    it(`${algorithm}: admits exactly the limit within a window`, async () => {
      const policy: RateLimitPolicy = { algorithm, limit: 500, windowMs: 86_400_000 };
      // Each process asks for less than the limit and all together for more: the limit is
      // reached only with at least three processes admitted, however late one starts (under load
      // one process took all 500 of 750 before the others began).
      const requests = 200;
      for (let attempt = 0; ; attempt++) {
        const results = await hammer({
          prefix,
          bucket: `${algorithm}:${attempt}`,
          policy,
          durationMs: 60_000,
          requests,
          inFlight: 16,
        });
        const resets = new Set(results.flatMap((r) => r.resets));
        // A fixed window that happened to turn over mid-run (at midnight UTC) proves nothing: rerun.
        if (algorithm === "fixed-window" && resets.size > 1 && attempt < 2) continue;
        const admitted = results.reduce((sum, r) => sum + r.admitted.length, 0);
        const sent = results.reduce((sum, r) => sum + r.sent, 0);
        console.info(
          `${algorithm}: ${sent} requests from ${workers} processes, ${admitted} admitted (limit ${policy.limit}); per process: ${results.map((r) => r.admitted.length).join(", ")}`,
        );
        expect(sent).toBe(workers * requests);
        expect(admitted).toBe(policy.limit);
        // The processes really did contend: three at least got a share of the limit.
        expect(results.filter((r) => r.admitted.length > 0).length).toBeGreaterThanOrEqual(3);
        break;
      }
    });
  }

  it("sliding-window: stays within the documented bound in every aligned window and every W ms", async () => {
    const policy: RateLimitPolicy = { algorithm: "sliding-window", limit: 40, windowMs: 500 };
    const results = await hammer({
      prefix,
      bucket: "sliding",
      policy,
      durationMs: 2_500,
      requests: 1_000_000,
      inFlight: 8,
    });
    const times = results.flatMap((r) => r.admitted).sort((a, b) => a - b);
    const { limit: L, windowMs: W } = policy;
    const bound = L + Math.floor((L * (W - 2)) / W);

    const perWindow = new Map<number, number>();
    for (const t of times) {
      const start = Math.floor(t / W) * W;
      perWindow.set(start, (perWindow.get(start) ?? 0) + 1);
    }
    const busiestAligned = Math.max(...perWindow.values());
    let busiestInterval = 0;
    for (let first = 0, last = 0; first < times.length; first++) {
      while (last < times.length && times[last]! < times[first]! + W) last++;
      busiestInterval = Math.max(busiestInterval, last - first);
    }
    const sent = results.reduce((sum, r) => sum + r.sent, 0);
    console.info(
      `sliding-window: ${sent} requests from ${workers} processes, ${times.length} admitted over ${perWindow.size} windows; busiest aligned window ${busiestAligned} (limit ${L}), busiest ${W} ms ${busiestInterval} (bound ${bound})`,
    );
    expect(perWindow.size).toBeGreaterThanOrEqual(4);
    expect(busiestAligned).toBeLessThanOrEqual(L);
    expect(busiestInterval).toBeLessThanOrEqual(bound);
    // Under constant pressure the limiter is not starving anyone either: most windows fill up.
    expect(times.length).toBeGreaterThanOrEqual(((perWindow.size - 2) * L) / 2);
  });
});
