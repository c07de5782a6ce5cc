/**
 * @keyward/testing/layered-exactness — for a store's own tests: layered limits (quotas, credits,
 * an owner's shared allowance) exact across processes. `startLayeredWorkers` forks worker
 * processes that each run `runLayeredWorker` with a Keyward instance of their own on the shared
 * store, and sends a round of one owner's requests through all of them at once. Node only (it
 * forks); not part of the root entry, which runs on every runtime. Nothing here imports vitest, so
 * a worker process (plain Node) imports it too.
 */
export type { LayeredJob, LayeredResult } from "./job.js";
export { type LayeredWorkerOptions, runLayeredWorker } from "./worker.js";
export {
  type LayeredRound,
  type LayeredWorkers,
  type LayeredWorkersOptions,
  ownerWithThreeKeys,
  startLayeredWorkers,
} from "./workers.js";
