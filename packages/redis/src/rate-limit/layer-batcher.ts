/**
 * Coalesces the layered steps requested within one turn of the event loop into script calls of up
 * to 32 requests, as `step-batcher.ts` does for single steps: on a single server any owners per
 * call, on a cluster one owner per call (its layers share a slot). The requests are still stepped
 * one after another inside one atomic script, so the decisions are those of separate calls.
 */
import type { LayeredDecision } from "@keyward/core";
import type { LayerRequest } from "./redis-layers.js";

interface Waiting {
  request: LayerRequest;
  resolve(decision: LayeredDecision): void;
  reject(error: unknown): void;
}

export type SendLayerRequests = (requests: readonly LayerRequest[]) => Promise<LayeredDecision[]>;

/**
 * Most requests in one script call. Twice the single-layer batch (\`step-batcher.ts\`): a layered
 * call's fixed cost is larger (the owner's shared layers are read and written once per call, each
 * key's usage hash once, the specs and groups parsed once), so sharing it among more requests pays
 * more than the overlap a smaller call leaves. In \`bench/redis-layers.bench.ts\` (64 in flight, 8
 * keys of one owner, quiet machine) layered throughput was 0.57–0.61× key-only at 16, 0.85–0.93×
 * at 32 and 0.59× at 64, which leaves one call and no overlap at all.
 */
const maxRequests = 32;

export function layerBatcher(send: SendLayerRequests, { cluster }: { cluster: boolean }) {
  let calls = new Map<string, Waiting[]>();
  let scheduled = false;

  const dispatch = (waiting: Waiting[]) => {
    send(waiting.map((entry) => entry.request)).then(
      (decisions) => {
        waiting.forEach((entry, index) => {
          entry.resolve(decisions[index]!);
        });
      },
      (error: unknown) => {
        for (const entry of waiting) entry.reject(error);
      },
    );
  };

  const flush = () => {
    scheduled = false;
    const due = calls;
    calls = new Map();
    for (const waiting of due.values()) dispatch(waiting);
  };

  return {
    step(request: LayerRequest): Promise<LayeredDecision> {
      return new Promise<LayeredDecision>((resolve, reject) => {
        const callKey = cluster ? request.owner : "";
        let waiting = calls.get(callKey);
        if (!waiting) {
          waiting = [];
          calls.set(callKey, waiting);
        }
        waiting.push({ request, resolve, reject });
        if (waiting.length >= maxRequests) {
          calls.delete(callKey);
          dispatch(waiting);
        }
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}
