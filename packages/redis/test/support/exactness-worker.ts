/**
 * One of the processes of `exactness.test.ts`. It connects, says "ready", then serves jobs from
 * stdin: a job line (JSON) is answered with "ready", a "go" line (sent to every worker at once, so
 * they start together) runs the job with a fixed number of requests in flight and answers with one
 * JSON line: every admitted request's decision time (Redis's clock), and the resets seen. Requests go
 * through the store's batcher, so they contend both within a process and across processes.
 *
 * Run as `node --conditions=@keyward/source --import tsx exactness-worker.ts`, with the tests'
 * KEYWARD_TEST_REDIS_URL.
 */
import { createInterface } from "node:readline";
import type { RateLimitPolicy } from "@keyward/core";
import IORedis from "ioredis";
import { redisConnection } from "../../src/client/connect.js";
import { keyNames } from "../../src/key-names.js";
import { stepsOnRedis } from "../../src/rate-limit/redis-steps.js";
import { stepBatcher } from "../../src/rate-limit/step-batcher.js";
import { localRedis } from "./redis-url.js";

export interface ExactnessJob {
  prefix: string;
  bucket: string;
  policy: RateLimitPolicy;
  /** Sends requests until `requests` are sent or `durationMs` has passed since "go". */
  durationMs: number;
  requests: number;
  inFlight: number;
}

// The tests' Redis, from KEYWARD_TEST_REDIS_URL, which this process inherits.
const client = new IORedis(localRedis);
const connection = redisConnection(client);
await client.ping();
process.stdout.write("ready\n");

const run = async (job: ExactnessJob) => {
  const names = keyNames(job.prefix);
  // As the store does: requests of one turn of the event loop share a script call.
  const batcher = stepBatcher((groups) => stepsOnRedis(connection, names, groups, "redis"), {
    cluster: false,
  });
  const admitted: number[] = [];
  const resets = new Set<number>();
  let sent = 0;
  let refused = 0;
  const deadline = Date.now() + job.durationMs;
  const lane = async () => {
    while (sent < job.requests && Date.now() < deadline) {
      sent += 1;
      const { decision, at } = await batcher.step(job.bucket, job.policy, { now: Date.now() });
      if (decision.allowed) {
        admitted.push(at);
        resets.add(decision.reset);
      } else refused += 1;
    }
  };
  await Promise.all(Array.from({ length: job.inFlight }, lane));
  return { sent, refused, admitted, resets: [...resets] };
};

let job: ExactnessJob | undefined;
for await (const line of createInterface({ input: process.stdin })) {
  if (line === "go" && job) {
    process.stdout.write(`${JSON.stringify(await run(job))}\n`);
    job = undefined;
  } else if (line === "exit") {
    break;
  } else {
    job = JSON.parse(line) as ExactnessJob;
    process.stdout.write("ready\n");
  }
}
client.disconnect();
