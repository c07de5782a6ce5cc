/**
 * One of the processes of `layered-exactness.test.ts`: a Keyward instance of its own on the shared
 * database (keys, quotas and credits; rate limits in this process's memory), on a clock the job sets. A "prepare" message builds it and answers "ready"; "go" (sent to
 * every worker at once) sends the job's requests, `inFlight` at a time, spread over the keys, and
 * answers how many each key got admitted and why the others were refused.
 *
 * Run with `fork(file, { execArgv: ["--conditions=@keyward/source", "--import", "tsx"] })`.
 */
import {
  combineStores,
  createKeyward,
  type Keyward,
  type KeywardConfig,
  manualClock,
  memoryStore,
} from "@keyward/core";
import pg from "pg";
import { postgresStore } from "../../src/index.js";

export interface LayeredJob {
  schema: string;
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

const client = new pg.Pool({ connectionString: process.env.KEYWARD_TEST_DATABASE_URL, max: 8 });
client.on("error", () => {});
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
      // No cache: each job reads the limits the test has just set.
      const pgStore = postgresStore({
        client,
        schema: job.schema,
        cache: false,
        invalidation: false,
        timeoutMs: 10_000,
      });
      const store = combineStores(pgStore, memoryStore());
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
      await client.end();
      process.disconnect();
    }
  },
);
process.send!("ready");
