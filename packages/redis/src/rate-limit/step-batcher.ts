/**
 * Coalesces the rate-limit steps requested within one turn of the event loop into one script
 * call: on a single Redis server one call for all of them, on a cluster one per principal (a
 * script may only touch one slot). Redis then reads and writes each principal's state once for
 * all its requests, and the per-command costs on both ends (parsing, the script's set-up, `TIME`,
 * the reply, the client's bookkeeping) are paid once per turn rather than once per request. A lone
 * request is one call, as before.
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

/** Most requests in one script call; past it the call is sent at once and a new one started. */
const maxRequests = 256;

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
          group.requests.forEach((request, r) => request.resolve(results[g]![r]!));
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
        if (!groups) calls.set(callKey, (groups = new Map()));
        const groupKey = `${policy.algorithm}:${policy.limit}:${policy.windowMs}:${bucket}`;
        let group = groups.get(groupKey);
        if (!group) groups.set(groupKey, (group = { bucket, policy, requests: [] }));
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
