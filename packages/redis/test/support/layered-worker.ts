/**
 * One of the processes of `layered-exactness.test.ts`: a Keyward instance of its own on the shared
 * Redis, on a clock the job sets. A "prepare" message builds it and answers "ready"; "go" (sent to
 * every worker at once) sends the job's requests, `inFlight` at a time, spread over the keys, and
 * answers how many each key got admitted and why the others were refused.
 *
 * Run with `fork(file, { execArgv: ["--conditions=@keyward/source", "--import", "tsx"] })`.
 */
import { createKeyward, type Keyward, type KeywardConfig, manualClock } from "@keyward/core";
import IORedis from "ioredis";
import { redisStore } from "../../src/index.js";
import { localRedis } from "./redis-url.js";

export interface LayeredJob {
  prefix: string;
  now: number;
  tiers: KeywardConfig["tiers"];
  /** Per lane: the secret, the credits a request spends, and the scopes its route requires. */
  keys: { secret: string; cost: number; scopes?: string[] }[];
  requests: number;
  inFlight: number;
}

export interface LayeredResult {
  admitted: number[];
  refusals: Record<string, number>;
}

// The tests' Redis, from KEYWARD_TEST_REDIS_URL, which this process inherits.
const client = new IORedis(localRedis);
let prepared: { job: LayeredJob; keyward: Keyward } | undefined;

const run = async ({ job, keyward }: NonNullable<typeof prepared>): Promise<LayeredResult> => {
  const admitted = job.keys.map(() => 0);
  const refusals: Record<string, number> = {};
  let sent = 0;
  const lane = async () => {
    while (sent < job.requests) {
      const index = sent % job.keys.length;
      sent += 1;
      const { secret, cost, scopes } = job.keys[index]!;
      const result = await keyward.verify(`Bearer ${secret}`, {
        route: "GET /p",
        cost,
        ...(scopes ? { scopes } : {}),
      });
      if (result.ok) admitted[index]! += 1;
      else refusals[String(result.error.detail)] = (refusals[String(result.error.detail)] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: job.inFlight }, lane));
  return { admitted, refusals };
};

process.on(
  "message",
  async (message: { type: "prepare"; job: LayeredJob } | { type: "go" } | { type: "exit" }) => {
    if (message.type === "prepare") {
      const { job } = message;
      const store = redisStore({
        client,
        prefix: job.prefix,
        keys: true,
        time: "caller",
        timeoutMs: 5_000,
      });
      const keyward = createKeyward({
        store,
        scopes: { "profile:read": "Read", "profile:write": "Write" },
        tiers: job.tiers,
        clock: manualClock(job.now),
        jwt: false,
        logger: false,
      });
      prepared = { job, keyward };
      process.send!("ready");
    } else if (message.type === "go" && prepared) {
      const result = await run(prepared);
      prepared = undefined;
      process.send!(result);
    } else if (message.type === "exit") {
      client.disconnect();
      process.disconnect();
    }
  },
);
process.send!("ready");
