/**
 * Coalesces the rate-limit steps requested for one principal within one turn of the event loop
 * into one script call. Redis then reads and writes that principal's state once for all of them,
 * and a hot key under load costs a fraction of a script per request; with a single request in the
 * turn (the usual case at low load) it is one call as before. The steps still run one after
 * another, in arrival order, inside one atomic script: decisions are exactly those of separate
 * calls arriving in the same millisecond. The wait is one `setImmediate`: the requests the current
 * I/O callbacks produce, no timer.
 */
import type { RateLimitPolicy } from "@keyward/core";
import type { StepRequest, TimedDecision } from "./redis-steps.js";

interface Waiting extends StepRequest {
  resolve(result: TimedDecision): void;
  reject(error: unknown): void;
}

interface Batch {
  bucket: string;
  policy: RateLimitPolicy;
  requests: Waiting[];
}

/** Sends one batch; resolves with one decision per request, in order. */
export type SendBatch = (
  bucket: string,
  policy: RateLimitPolicy,
  requests: readonly StepRequest[],
) => Promise<TimedDecision[]>;

/** Most requests in one script call; a larger batch is split. */
const maxBatch = 128;

export function stepBatcher(send: SendBatch) {
  let pending = new Map<string, Batch>();
  let scheduled = false;

  const dispatch = (batch: Batch) => {
    const { requests } = batch;
    send(batch.bucket, batch.policy, requests).then(
      (results) => {
        for (let i = 0; i < requests.length; i++) requests[i]!.resolve(results[i]!);
      },
      (error: unknown) => {
        for (const request of requests) request.reject(error);
      },
    );
  };

  const flush = () => {
    scheduled = false;
    const batches = pending;
    pending = new Map();
    for (const batch of batches.values()) dispatch(batch);
  };

  return {
    step(bucket: string, policy: RateLimitPolicy, request: StepRequest): Promise<TimedDecision> {
      return new Promise<TimedDecision>((resolve, reject) => {
        const slot = `${policy.algorithm}:${policy.limit}:${policy.windowMs}:${bucket}`;
        let batch = pending.get(slot);
        if (!batch) {
          batch = { bucket, policy, requests: [] };
          pending.set(slot, batch);
        }
        batch.requests.push({ now: request.now, usage: request.usage, resolve, reject });
        if (batch.requests.length >= maxBatch) {
          pending.delete(slot);
          dispatch(batch);
        }
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}
