import type { LayeredDecision } from "@keyward/core";
import { describe, expect, it } from "vitest";
import { layerBatcher } from "./layer-batcher.js";
import type { LayerRequest } from "./redis-layers.js";

function request(owner: string, now: number): LayerRequest {
  return { owner, now, layers: [] } as unknown as LayerRequest;
}

/** A send that records each call's requests and admits them all. */
function recordingSend() {
  const calls: LayerRequest[][] = [];
  const send = async (requests: readonly LayerRequest[]): Promise<LayeredDecision[]> => {
    calls.push([...requests]);
    return requests.map(() => ({ allowed: true, layers: [] }));
  };
  return { calls, send };
}

describe("layerBatcher", () => {
  it("sends at most 32 requests per call, in arrival order", async () => {
    const { calls, send } = recordingSend();
    const batcher = layerBatcher(send, { cluster: false });
    await Promise.all(Array.from({ length: 70 }, (_, i) => batcher.step(request("user:a", i))));
    expect(calls.map((call) => call.length)).toEqual([32, 32, 6]);
    expect(calls.flat().map((r) => r.now)).toEqual(Array.from({ length: 70 }, (_, i) => i));
  });

  it("keeps owners apart on a cluster (one slot per script), and mixes them on one server", async () => {
    const cluster = recordingSend();
    const clustered = layerBatcher(cluster.send, { cluster: true });
    await Promise.all([
      clustered.step(request("user:a", 1)),
      clustered.step(request("user:b", 2)),
      clustered.step(request("user:a", 3)),
    ]);
    expect(cluster.calls.map((call) => call.map((r) => [r.owner, r.now]))).toEqual([
      [
        ["user:a", 1],
        ["user:a", 3],
      ],
      [["user:b", 2]],
    ]);
    const single = recordingSend();
    const server = layerBatcher(single.send, { cluster: false });
    await Promise.all([server.step(request("user:a", 1)), server.step(request("user:b", 2))]);
    expect(single.calls).toHaveLength(1);
  });
});
