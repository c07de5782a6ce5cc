/**
 * One script call for the layers of several requests (`lua/consume-layers.ts`): the arguments it
 * takes and the decisions it returns.
 */
import type {
  CounterIncrement,
  LayerDecision,
  LayeredDecision,
  LayeredRead,
  LimitLayer,
  UsageHit,
} from "@keyward/core";
import { isLaterUse, parseBucket, startsFromNothing } from "@keyward/core/toolkit";
import type { RedisConnection } from "../client/redis-connection.js";
import type { KeyNames } from "../key-names.js";
import { consumeLayersScript } from "../lua/consume-layers.js";
import { useRecord } from "../lua/later-use.js";
import { dayField, endpointField } from "../usage/usage-fields.js";
import { type ChargeMarkers, chargeMarkersFor, chargeMarkerTtlMs } from "./charge-markers.js";
import type { TimeSource } from "./redis-steps.js";

function specOf(layer: LimitLayer, durableCredits: boolean): string {
  switch (layer.layer) {
    case "key":
    case "owner": {
      const { algorithm, limit, windowMs } = layer.policy;
      return `r ${algorithm}:${limit}:${windowMs}`;
    }
    case "quota":
      return `q ${layer.limit} ${layer.period}`;
    case "credits": {
      // "d": the durable balance is elsewhere, so a missing state is not started from the grant.
      // Credits that start from nothing have none: their missing state is their start.
      const kind = durableCredits && !startsFromNothing(layer) ? "d" : "c";
      const base = `${kind} ${layer.cost} ${layer.remaining} ${layer.grantedAt}`;
      return layer.refill ? `${base} ${layer.refill.amount} ${layer.refill.period}` : base;
    }
  }
}

function limitOf(layer: LimitLayer): number {
  switch (layer.layer) {
    case "key":
    case "owner":
      return layer.policy.limit;
    case "quota":
      return layer.limit;
    case "credits":
      return layer.refill ? layer.refill.amount : layer.remaining;
  }
}

/** A refused layer's retryAfter from the script: a durable credits layer with no state. */
const unseededMark = -1;

/** One request's layers, and its usage when the key's usage hash may share the call. */
export interface LayerRequest extends LayeredRead {
  usage?: UsageHit | undefined;
  /** Counters an admitted request adds to (`CounterIncrement`), in the owner's slot. */
  increments?: readonly CounterIncrement[] | undefined;
}

/** Where one layer's state lives and what the script is told about it. */
interface LayerWire {
  key: string;
  /** In a hash's `rp`/`rl` fields (a key's own limit in its usage hash), else a string key. */
  inHash: boolean;
  /** The key whose usage hash `key` is, when `inHash`. */
  keyId?: string;
  /**
   * The key's own layer: its state differs from key to key, while the other layers of a list are
   * usually shared by the owner's keys. The script takes it per group, the rest once per call.
   */
  own: boolean;
  spec: string;
}

/**
 * Sends requests' layers to Redis. Where each layer lives and its spec are worked out once per
 * list of layers: Keyward plans a key's layers once per record (`planKeyLimits`), so on the hot
 * path this is one `WeakMap` lookup instead of building four strings per request.
 *
 * @param keyLayerInUsage the key's own layer lives in its usage hash (`rp`/`rl`, where the
 *   single-layer path keeps it): true on a single server. On a cluster every layer of a request must
 *   share the owner's slot, so it is a key of its own under the owner's hash tag.
 */
export function redisLayers(
  connection: RedisConnection,
  names: KeyNames,
  time: TimeSource,
  { keyLayerInUsage }: { keyLayerInUsage: boolean },
) {
  const wires = new WeakMap<
    readonly LimitLayer[],
    { owner: string; durable: boolean; wire: LayerWire[] }
  >();

  const wireOf = (owner: string, layers: readonly LimitLayer[], durable: boolean): LayerWire[] => {
    const cached = wires.get(layers);
    if (cached && cached.owner === owner && cached.durable === durable) return cached.wire;
    const wire = layers.map((layer): LayerWire => {
      const own = layer.layer === "key";
      const keyId = own ? keyIdOf(layer.bucket) : undefined;
      const spec = specOf(layer, durable);
      return keyLayerInUsage && keyId !== undefined
        ? { key: names.usage(keyId), inHash: true, keyId, own, spec }
        : { key: names.layer(owner, layer.bucket), inHash: false, own, spec };
    });
    wires.set(layers, { owner, durable, wire });
    return wire;
  };

  /**
   * Steps the requests one after another in one atomic call (all on one slot on a cluster: one
   * owner's, without usage), grouped by their layers and usage as the script takes them. Resolves
   * with one decision per request, in the order given.
   */
  return async function layersOnRedis(
    mode: "consume" | "read",
    requests: readonly LayerRequest[],
    markers?: ChargeMarkers,
  ): Promise<LayeredDecision[]> {
    const keys = new Map<string, number>();
    const specs = new Map<string, number>();
    const fieldIndex = new Map<string, number>();
    const indexIn = (table: Map<string, number>, name: string) => {
      let index = table.get(name);
      if (index === undefined) {
        index = table.size + 1;
        table.set(name, index);
      }
      return index;
    };
    /** Lists of layers, with "*" for the key's own, which the groups of a call mostly share. */
    const lists = new Map<string, number>();
    /** Sets of counter increments, as the script takes them: a call's requests mostly share one. */
    const incrementSets = new Map<string, number>();
    /** Requests by their own key and list: the script resolves each group's layers once. */
    const groups = new Map<
      string,
      {
        own: number;
        list: number;
        /** Its increment set's index, 0 for none. */
        set: number;
        positions: number[];
        usage: Map<string, number>;
        /** Per usage hash (its index in KEYS), the latest use fields among the requests. */
        uses?: Map<number, { at: number; fields: string }>;
      }
    >();
    requests.forEach(({ owner, layers, usage, durableCredits, now, increments }, position) => {
      const wire = wireOf(owner, layers, durableCredits === true);
      let line = "";
      let own = 0;
      for (const layer of wire) {
        const where = layer.inHash ? "#" : ".";
        if (layer.own && own === 0) {
          own = indexIn(keys, layer.key);
          line += ` *${where}${indexIn(specs, layer.spec)}`;
        } else {
          line += ` ${indexIn(keys, layer.key)}${where}${indexIn(specs, layer.spec)}`;
        }
      }
      const list = indexIn(lists, line);
      let set = 0;
      if (mode === "consume" && increments !== undefined && increments.length > 0) {
        const text = increments
          .map(
            ({ counter, field, by, expireAt }) =>
              `${indexIn(keys, names.counter(owner, counter))} ${field} ${by} ${expireAt ?? "-"}`,
          )
          .join(",");
        set = indexIn(incrementSets, text);
      }
      const groupKey = `${own} ${list} ${set}`;
      let group = groups.get(groupKey);
      if (!group) {
        group = { own, list, set, positions: [], usage: new Map() };
        groups.set(groupKey, group);
      }
      group.positions.push(position);
      if (usage) {
        // Usage is the key's own: on a single server, the hash its layer already names.
        const usageKey = wire[0]?.keyId === usage.keyId ? wire[0].key : names.usage(usage.keyId);
        const hash = indexIn(keys, usageKey);
        const fields = `${hash}:${indexIn(fieldIndex, endpointField(usage.method, usage.route))}:${indexIn(fieldIndex, dayField(usage.day))}`;
        group.usage.set(fields, (group.usage.get(fields) ?? 0) + 1);
        if (usage.useFields !== undefined) {
          group.uses ??= new Map();
          const at = Math.round(now);
          const kept = group.uses.get(hash);
          if (isLaterUse(at, usage.useFields, kept?.at, kept?.fields)) {
            group.uses.set(hash, { at, fields: usage.useFields });
          }
        }
      }
    });
    const args = [
      time,
      mode,
      String(chargeMarkerTtlMs),
      String(specs.size),
      ...specs.keys(),
      String(fieldIndex.size),
      ...fieldIndex.keys(),
      String(lists.size),
      ...lists.keys(),
      String(incrementSets.size),
      ...incrementSets.keys(),
    ];
    for (const { own, list, set, positions, usage, uses } of groups.values()) {
      let lastUsedAt = Number.NEGATIVE_INFINITY;
      for (const position of positions) {
        const request = requests[position]!;
        if (request.usage) lastUsedAt = Math.max(lastUsedAt, request.now);
      }
      const counted =
        usage.size === 0
          ? "-"
          : [...usage].map(([fields, count]) => `${fields}x${count}`).join(",");
      const latest = usage.size === 0 ? "-" : String(Math.round(lastUsedAt));
      const incremented = set === 0 ? "" : ` +${set}`;
      if (uses === undefined) {
        args.push(`${positions.length} ${latest} ${own} ${list} ${counted}${incremented}`);
      } else {
        // Then how many uses follow, each "<hash> <at> <fields>".
        args.push(
          `${positions.length} ${latest} ${own} ${list} ${counted} ${uses.size}${incremented}`,
        );
        for (const [hash, { at, fields }] of uses) {
          args.push(`${hash} ${useRecord(at, fields)}`);
        }
      }
      if (time === "caller") {
        for (const position of positions) args.push(String(Math.round(requests[position]!.now)));
      }
    }
    const keyList = [...keys.keys()];
    if (mode === "consume") {
      // A caller that may give up on the call passes markers it can void; otherwise fresh ones.
      const marked = markers ?? chargeMarkersFor(names, requests[0]!.owner);
      keyList.push(marked.paid, marked.void);
    }
    const reply = (await connection.run(consumeLayersScript, keyList, args)) as number[];

    const decisions: LayeredDecision[] = new Array(requests.length);
    let offset = 0;
    for (const { positions } of groups.values()) {
      for (const position of positions) {
        const allowed = reply[offset++] === 1;
        let unseeded = false;
        const layers = requests[position]!.layers.map((layer): LayerDecision => {
          const limit = limitOf(layer);
          if (allowed) {
            const decision = {
              layer: layer.layer,
              allowed,
              limit,
              remaining: Number(reply[offset]),
              reset: Number(reply[offset + 1]),
              retryAfter: 0,
            };
            offset += 2;
            return decision;
          }
          const retryAfter = Number(reply[offset + 3]);
          const decision: LayerDecision = {
            layer: layer.layer,
            allowed: reply[offset] === 1,
            limit,
            remaining: Number(reply[offset + 1]),
            reset: Number(reply[offset + 2]),
            retryAfter,
          };
          offset += 4;
          // The script's mark for a durable credits layer it holds no state for.
          if (retryAfter === unseededMark) {
            decision.unseeded = true;
            decision.retryAfter = 0;
            unseeded = true;
          }
          return decision;
        });
        decisions[position] = unseeded ? { allowed, layers, unseeded } : { allowed, layers };
      }
    }
    return decisions;
  };
}

function keyIdOf(bucket: string): string | undefined {
  const owner = parseBucket(bucket);
  return owner?.kind === "key" ? owner.keyId : undefined;
}
