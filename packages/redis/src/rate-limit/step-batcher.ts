/**
 * Coalesces the rate-limit steps requested within one turn of the event loop into script calls of
 * up to 16 requests: on a single Redis server any mix of principals per call, on a cluster one
 * principal per call (a script may only touch one slot). Redis then reads and writes a principal's
 * state once for all its requests in the call, and the fixed costs of a call on both ends (parsing,
 * the script's set-up, `TIME`, the reply, the client's bookkeeping) are shared. A lone request is
 * one call, as it would be without batching.
 *
 * The steps still run one after another, in arrival order, inside one atomic script: the decisions
 * are exactly those of separate calls arriving in the same millisecond. The wait is one
 * `setImmediate`, which collects what the current I/O callbacks produced; no timer.
 */
import type { RateLimitPolicy } from "@keyward/core";
import type { StepGroup, StepRequest, TimedDecision } from "./redis-steps.js";

interface Waiting extends StepRequest {
  resolve(result: TimedDecision): void;
  reject(error: unknown): void;
}

interface PendingGroup extends StepGroup {
  requests: Waiting[];
}

/** Sends groups in one call; resolves with one list of decisions per group, in order. */
export type SendGroups = (groups: readonly StepGroup[]) => Promise<TimedDecision[][]>;

/**
 * Most requests in one script call; past it the call is sent at once and a new one started. Small
 * enough that Redis works on one call while the client handles the replies of the one before
 * (64 requests in one call leave each side idle half the time), large enough to share each call's
 * fixed costs: 16 did best at 64 in flight (`bench/redis.bench.ts`).
 */
const maxRequests = 16;

export function stepBatcher(send: SendGroups, { cluster }: { cluster: boolean }) {
  /** call (all, or one per principal on a cluster) → (bucket and policy) → its requests */
  let calls = new Map<string, Map<string, PendingGroup>>();
  let sizes = new Map<string, number>();
  let scheduled = false;

  const dispatch = (groups: Map<string, PendingGroup>) => {
    const list = [...groups.values()];
    send(list).then(
      (results) => {
        list.forEach((group, g) => {
          group.requests.forEach((request, r) => {
            request.resolve(results[g]![r]!);
          });
        });
      },
      (error: unknown) => {
        for (const group of list) for (const request of group.requests) request.reject(error);
      },
    );
  };

  const flush = () => {
    scheduled = false;
    const due = calls;
    calls = new Map();
    sizes = new Map();
    for (const groups of due.values()) dispatch(groups);
  };

  return {
    step(bucket: string, policy: RateLimitPolicy, request: StepRequest): Promise<TimedDecision> {
      return new Promise<TimedDecision>((resolve, reject) => {
        const callKey = cluster ? bucket : "";
        let groups = calls.get(callKey);
        if (!groups) {
          groups = new Map();
          calls.set(callKey, groups);
        }
        const groupKey = `${policy.algorithm}:${policy.limit}:${policy.windowMs}:${bucket}`;
        let group = groups.get(groupKey);
        if (!group) {
          group = { bucket, policy, requests: [] };
          groups.set(groupKey, group);
        }
        group.requests.push({ now: request.now, usage: request.usage, resolve, reject });

        const size = (sizes.get(callKey) ?? 0) + 1;
        if (size >= maxRequests) {
          calls.delete(callKey);
          sizes.delete(callKey);
          dispatch(groups);
        } else {
          sizes.set(callKey, size);
        }
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}
