/**
 * The worker side of a layered-exactness test: a process with a Keyward instance of its own on
 * the shared store, on a clock the job sets. A "prepare" message builds the instance and answers
 * "ready"; "go" (sent to every worker at once) sends the job's requests and answers a
 * `LayeredResult`; "exit" closes what the process opened and disconnects.
 */
import { createKeyward, type Keyward, type KeywardStore, manualClock } from "@keyward/core";
import type { LayeredJob, LayeredResult } from "./job.js";

export interface LayeredWorkerOptions<Where> {
  /** The store this process's instance uses for a job, on the process's own connection. */
  store(where: Where): KeywardStore;
  /** Ends the process's connection (its pool, its client) before it exits. */
  close(): Promise<void> | void;
}

type Message<Where> =
  | { type: "prepare"; job: LayeredJob<Where> }
  | { type: "go" }
  | { type: "exit" };

/**
 * Serves the messages of `startLayeredWorkers`, in a process it forked. Call it once, at the top
 * of the worker file.
 *
 * @example
 * // test/support/layered-worker.ts
 * const client = new IORedis();
 * runLayeredWorker<{ prefix: string }>({
 *   store: ({ prefix }) => redisStore({ client, prefix, keys: true, time: "caller" }),
 *   close: () => client.disconnect(),
 * });
 */
export function runLayeredWorker<Where>(options: LayeredWorkerOptions<Where>): void {
  let prepared: { job: LayeredJob<Where>; keyward: Keyward } | undefined;
  process.on("message", async (message: Message<Where>) => {
    if (message.type === "prepare") {
      const { job } = message;
      const keyward = createKeyward({
        store: options.store(job.where),
        scopes: { "profile:read": "Read", "profile:write": "Write" },
        tiers: job.tiers,
        clock: manualClock(job.now),
        jwt: false,
        logger: false,
      });
      prepared = { job, keyward };
      process.send!("ready");
    } else if (message.type === "go" && prepared) {
      const result = await sendRequests(prepared.job, prepared.keyward);
      prepared = undefined;
      process.send!(result);
    } else if (message.type === "exit") {
      await options.close();
      process.disconnect();
    }
  });
  process.send!("ready");
}

/** The job's requests, `inFlight` lanes at a time, each request to the next key in turn. */
async function sendRequests<Where>(
  job: LayeredJob<Where>,
  keyward: Keyward,
): Promise<LayeredResult> {
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
}
