/**
 * `RateLimitStore` on Redis: each `consume` is a step of `lua/consume.ts`, which applies the
 * policy's algorithm to the principal's state and, for an API key, counts the request's usage in
 * the same call. Decisions are taken on Redis's clock (`TIME`), so instances whose clocks disagree
 * still share one limit. Steps requested in the same turn of the event loop share a call
 * (`step-batcher.ts`).
 */
import type {
  LayeredConsume,
  LayeredDecision,
  RateLimitDecision,
  RateLimitStore,
  UsageHit,
  UsageStore,
} from "@keyward/core";
import { bucketFor, type CallGuard, rateLimitAlgorithms } from "@keyward/core/toolkit";
import type { RedisConnection } from "../client/redis-connection.js";
import type { KeyNames } from "../key-names.js";
import { freshCredits, seedCreditsScript } from "../lua/seed-credits.js";
import { chargeMarkersFor, chargeVoids } from "./charge-markers.js";
import { counterIncrementBacklog, readCounterScript } from "./counter-backlog.js";
import { layerBatcher } from "./layer-batcher.js";
import { redisLayers } from "./redis-layers.js";
import { stepsOnRedis, type TimeSource } from "./redis-steps.js";
import { stepBatcher } from "./step-batcher.js";
import { incrementOf, type UsageBacklog } from "./usage-backlog.js";

export type StoreErrorPolicy = "fail-closed" | "fail-open";

export interface RedisRateLimitStoreOptions {
  time: TimeSource;
  /** Count each request's usage in its rate-limit call; false leaves usage to Keyward's recorder. */
  recordsUsage: boolean;
  onStoreError: StoreErrorPolicy;
  /** Limits requests while Redis is unreachable under `"fail-open"`. */
  insurance: RateLimitStore;
  /** Told when voiding a given-up call failed (it is retried). */
  onVoidError?(error: unknown): void;
}

export function redisRateLimitStore(
  connection: RedisConnection,
  names: KeyNames,
  guard: CallGuard,
  usage: UsageStore,
  backlog: UsageBacklog,
  options: RedisRateLimitStoreOptions,
): RateLimitStore & {
  readonly recordsUsage: boolean;
  consumeLayers: NonNullable<RateLimitStore["consumeLayers"]>;
  readLayers: NonNullable<RateLimitStore["readLayers"]>;
  seedCredits: NonNullable<RateLimitStore["seedCredits"]>;
  readCounter: NonNullable<RateLimitStore["readCounter"]>;
  /** Stops retrying voids that have not landed (on close). */
  stopVoiding(): void;
} {
  const { time, insurance, recordsUsage } = options;
  const failOpen = options.onStoreError === "fail-open";
  const batcher = stepBatcher(
    (groups) => guard.run(() => stepsOnRedis(connection, names, groups, time), "consume"),
    { cluster: connection.cluster },
  );

  const recordApart = (hit: UsageHit, now: number) => {
    usage.record([incrementOf(hit, now)]).catch(() => backlog.add(hit, now));
  };

  // On a cluster a key's usage hash is in the key's slot, not its owner's: counted by a call of its own.
  const usageTogether = !connection.cluster;
  const layersOnRedis = redisLayers(connection, names, time, { keyLayerInUsage: usageTogether });
  // A call given up on (deadline, failure) is voided: its requests were answered 500, so what it
  // charged to quotas and credits, if it ran or runs later, is undone (`charge-markers.ts`).
  const counterBacklog = counterIncrementBacklog(connection, names);
  const voids = chargeVoids(connection, { onError: options.onVoidError ?? (() => {}) });
  const layers = layerBatcher(
    async (requests) => {
      const markers = chargeMarkersFor(names, requests[0]!.owner);
      try {
        return await guard.run(() => layersOnRedis("consume", requests, markers), "consume-layers");
      } catch (error) {
        void voids.voidCall(markers);
        throw error;
      }
    },
    { cluster: connection.cluster },
  );

  return {
    recordsUsage,
    shared: true,
    stopVoiding: () => voids.close(),

    async consumeLayers(request: LayeredConsume): Promise<LayeredDecision> {
      const hit = recordsUsage ? request.usage : undefined;
      let decision: LayeredDecision;
      try {
        decision = await layers.step({ ...request, usage: usageTogether ? hit : undefined });
      } catch (error) {
        if (!failOpen || !insurance.consumeLayers) throw error;
        if (hit) backlog.add(hit, request.now);
        const insured = await insurance.consumeLayers({
          ...request,
          usage: undefined,
          increments: undefined,
        });
        // Decided here: the counters are added once Redis answers again, as usage is.
        if (insured.allowed && request.increments)
          counterBacklog.add(request.owner, request.increments);
        return insured;
      }
      if (hit && !usageTogether) recordApart(hit, request.now);
      if (backlog.size > 0) void backlog.flush();
      if (counterBacklog.size > 0) void counterBacklog.flush();
      return decision;
    },

    appliesIncrements: true,
    async readCounter(owner, counter) {
      const fields = (await guard.run(
        () => connection.run(readCounterScript, [names.counter(owner, counter)], []),
        readCounterScript.name,
      )) as string[];
      const read: Record<string, number> = {};
      for (let index = 0; index < fields.length; index += 2) {
        read[fields[index]!] = Number(fields[index + 1]);
      }
      return read;
    },

    async readLayers(request) {
      const [decision] = await guard.run(
        () => layersOnRedis("read", [{ ...request, usage: undefined }]),
        "read-layers",
      );
      return decision!.layers;
    },

    async seedCredits(owner, seeds) {
      if (seeds.length === 0) return;
      await guard.run(
        () =>
          connection.run(
            seedCreditsScript,
            seeds.map(({ bucket }) => names.layer(owner, bucket)),
            seeds.map(({ state }) =>
              state?.length === 3 ? `${state[0]}:${state[1]}:${state[2]}` : freshCredits,
            ),
          ),
        seedCreditsScript.name,
      );
    },

    // What this store counts is read back from `usage`: `combineStores` checks the two go together.
    ...(recordsUsage ? { usageStore: usage } : {}),

    async consume(bucket, policy, now, given) {
      const hit = recordsUsage ? given : undefined;
      if (!Object.hasOwn(rateLimitAlgorithms, policy.algorithm)) {
        throw new TypeError(`Unknown rate-limit algorithm ${JSON.stringify(policy.algorithm)}`);
      }
      // Keyward limits an API key under `key:<id>`, whose state is in that key's usage hash; usage
      // paired with another bucket is written by a call of its own.
      const together = hit !== undefined && bucketFor.key(hit.keyId) === bucket;
      let decision: RateLimitDecision;
      try {
        ({ decision } = await batcher.step(bucket, policy, {
          now,
          usage: together ? hit : undefined,
        }));
      } catch (error) {
        // Failing closed, the request is answered 500: it was not served, so it is not a use.
        if (!failOpen) throw error;
        // Failing open, it is decided here and counts like any other, once Redis answers again.
        if (hit) backlog.add(hit, now);
        return insurance.consume(bucket, policy, now);
      }
      if (hit && !together) recordApart(hit, now);
      if (backlog.size > 0) void backlog.flush();
      return decision;
    },
  };
}
