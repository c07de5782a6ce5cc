/**
 * The test side of a layered-exactness test: worker processes (`runLayeredWorker`), each its own
 * Keyward instance on one shared store, sending one owner's requests at once, so that a layer
 * (a quota, credits, an owner's shared allowance) is shown to admit exactly its limit across
 * processes. The test creates the keys and sets the limits with an instance of its own.
 */
import { type ChildProcess, fork } from "node:child_process";
import type { KeyWithSecret, Keyward } from "@keyward/core";
import type { LayeredJob, LayeredResult } from "./job.js";

export interface LayeredWorkersOptions<Where> {
  /** The worker file, which calls `runLayeredWorker`; run with tsx and `@keyward/source`. */
  workerFile: string;
  /** The folder the workers run in (the store package's, where tsx and its driver resolve). */
  cwd: string;
  /** Variables the workers get beside this process's (where the store is). */
  env?: Record<string, string>;
  /** How many processes. */
  workers: number;
  /** How many requests each sends per round. */
  perWorker: number;
  /** Where the store keeps this test's data, handed to every job. */
  where: Where;
}

/** One round's outcome, summed over the workers. */
export interface LayeredRound {
  /** Admitted requests per lane. */
  admitted: number[];
  /** Refused requests by their error's detail. */
  refusals: Record<string, number>;
  /** Admitted requests in all. */
  total: number;
}

export interface LayeredWorkers {
  /**
   * Every worker sends `perWorker` requests at once, on the clock at `now`; the outcome summed.
   * Throws when only one process got requests admitted (they did not contend).
   */
  round(job: Pick<LayeredJob<unknown>, "now" | "tiers" | "keys">): Promise<LayeredRound>;
  /** Tells every worker to close its connection and exit. */
  close(): void;
}

/** Forks the workers and resolves once every one is ready. */
export async function startLayeredWorkers<Where>(
  options: LayeredWorkersOptions<Where>,
): Promise<LayeredWorkers> {
  const pool = Array.from({ length: options.workers }, () => forkWorker(options));
  const greetings = await Promise.all(pool.map((worker) => worker.next()));
  if (greetings.some((greeting) => greeting !== "ready")) {
    throw new Error(`layered workers did not start: ${JSON.stringify(greetings)}`);
  }
  return {
    async round(job) {
      for (const worker of pool) {
        const prepared: LayeredJob<Where> = {
          ...job,
          where: options.where,
          requests: options.perWorker,
          inFlight: 8,
        };
        worker.child.send({ type: "prepare", job: prepared });
      }
      await Promise.all(pool.map((worker) => worker.next()));
      for (const worker of pool) worker.child.send({ type: "go" });
      const results = (await Promise.all(pool.map((worker) => worker.next()))) as LayeredResult[];
      const admitted = job.keys.map((_, index) =>
        results.reduce((sum, result) => sum + result.admitted[index]!, 0),
      );
      const refusals: Record<string, number> = {};
      for (const result of results) {
        for (const [detail, count] of Object.entries(result.refusals)) {
          refusals[detail] = (refusals[detail] ?? 0) + count;
        }
      }
      // The processes really did contend: more than one got admitted requests.
      if (results.filter((r) => r.admitted.some((n) => n > 0)).length < 2) {
        throw new Error("layered workers did not contend: one process got every admitted request");
      }
      return { admitted, refusals, total: admitted.reduce((a, b) => a + b, 0) };
    },
    close() {
      for (const worker of pool) worker.child.send({ type: "exit" });
    },
  };
}

/** Three keys (scope `profile:read`, tier `free`) of a fresh owner. */
export async function ownerWithThreeKeys(
  keyward: Keyward,
): Promise<{ ownerId: string; keys: KeyWithSecret[] }> {
  const ownerId = `owner-${Math.random().toString(36).slice(2)}`;
  const create = () =>
    keyward.keys.create({
      ownerId,
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
  return { ownerId, keys: [await create(), await create(), await create()] };
}

/** A forked worker and its replies over IPC in the order they came. */
function forkWorker(options: LayeredWorkersOptions<unknown>) {
  const child: ChildProcess = fork(options.workerFile, [], {
    cwd: options.cwd,
    execArgv: ["--conditions=@keyward/source", "--import", "tsx"],
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const replies: unknown[] = [];
  const waiters: ((reply: unknown) => void)[] = [];
  child.on("message", (reply) => {
    const waiter = waiters.shift();
    if (waiter) waiter(reply);
    else replies.push(reply);
  });
  const next = () =>
    new Promise<unknown>((resolve) => {
      if (replies.length > 0) resolve(replies.shift());
      else waiters.push(resolve);
    });
  return { child, next };
}
