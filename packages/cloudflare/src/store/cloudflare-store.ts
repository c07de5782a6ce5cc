/**
 * `cloudflareStore`: Keyward's store on Durable Objects. Every part is a call to an object of one
 * namespace (`protocol/object-names.ts`): keys, events, the webhook outbox and usage to the `keys`
 * object; rate limits, quotas and credits to the owner's object (or the key's, `limitObjects:
 * "key"`), each call one atomic step there, so limits are exact across isolates and locations.
 * Verification reads key records from the isolate's cache (`store/key-cache.ts`) and names the
 * record's version in its limit call, which the limit object refuses when the key changed since:
 * the store then rejects with core's `KeyChangedError` and the current record, and `verify` checks
 * and charges the request again with it (revoked: 401; scopes narrowed: 403; renamed: admitted).
 */
import {
  type Clock,
  type EventLog,
  type KeyStore,
  type KeywardStore,
  type LimitLayer,
  type RateLimitStore,
  type StoredKey,
  type StoreParts,
  systemClock,
  type UsageStore,
  type WebhookOutbox,
} from "@keyward/core";
import type { HoldStore } from "@keyward/core/budgets";
import { KeyChangedError, parseBucket } from "@keyward/core/toolkit";
import type { LimitAnswer, VersionCheck } from "../object/limit-table.js";
import { callObject, type ObjectNamespace } from "../protocol/object-call.js";
import {
  bucketObjectName,
  keyObjectName,
  keysObjectName,
  ownerObjectName,
} from "../protocol/object-names.js";
import { callWhereHeld, isGiveBack } from "../protocol/where-held.js";
import { cloudflareHoldStore } from "./cloudflare-hold-store.js";
import { keyCache } from "./key-cache.js";

/** Key-days (`usage.prune`) or events with their deliveries (`events.prune`) removed per call. */
const pruneBatch = 500;

/** Core names a key's credits bucket `credits:<key id>` (`limits/resolve-layers.ts`). */
const creditsBucketPrefix = "credits:";
/** Budgets name a key's own budget `budget:key:<key id>` (`budgets/budget-layers.ts`). */
const keyBudgetBucketPrefix = "budget:key:";

export interface CloudflareStoreOptions {
  /** The Durable Object namespace bound to `KeywardObject` (`env.KEYWARD`). */
  namespace: ObjectNamespace;
  /**
   * Starts the name of every object this store uses, so that several stores (a test's, an
   * environment's) share one namespace without meeting. Default: none.
   */
  prefix?: string;
  /**
   * Where a key's own limits are kept. `"owner"` (default): in its owner's object with the owner's
   * shared allowance and quota, one object per owner. `"key"`: a key whose layers are only its own
   * (its rate limit, its credits) in an object of its own, so an owner with many busy keys is not
   * limited by one object's throughput; layers shared by the owner stay in the owner's object.
   * See docs/cloudflare.md, "Hot owners".
   */
  limitObjects?: "owner" | "key";
  /**
   * How long the isolate serves a key record from its cache before reading it again. Admission
   * never depends on it (a changed key is refused by its limit object at once); it bounds how long
   * a change that only widens what a key may do (an allowlist, say) takes to reach an isolate.
   * Default 60 s.
   */
  cacheTtlMs?: number;
  /** Most key records cached per isolate. Default 10,000. */
  maxCachedKeys?: number;
  /** The clock of the cache's expiry; default the system clock. */
  clock?: Clock;
  /**
   * Whether the `holds` object releases each of budgets' holds at its TTL from its alarm, by the
   * system clock (default true). Off only for a Keyward on a clock of its own (a test's manual
   * clock), whose holds' `expiresAt` the system clock would misread; its sweep releases them.
   */
  releaseHoldsAtTtl?: boolean;
}

export interface CloudflareStore extends KeywardStore, StoreParts {
  keys: KeyStore & { peek(secretHash: string): StoredKey | null | undefined };
  usage: UsageStore;
  rateLimits: RateLimitStore;
  events: EventLog;
  outbox: WebhookOutbox;
  /**
   * Budgets' holds, shared by every isolate: `budgets({ holds: store.holds })`. Each hold is
   * released at its TTL by the `holds` object's alarm (docs/cloudflare.md).
   */
  holds: HoldStore;
  /** Every row the `keys` object and the named limit objects hold, for tests that check storage. */
  dump(limitObjects?: readonly string[]): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * @example
 * // worker.ts
 * export { KeywardObject } from "@keyward/cloudflare";
 * const keyward = createKeyward({ store: cloudflareStore({ namespace: env.KEYWARD }), scopes, tiers });
 */
export function cloudflareStore(options: CloudflareStoreOptions): CloudflareStore {
  const { namespace, prefix = "", limitObjects = "owner" } = options;
  if (typeof namespace?.idFromName !== "function" || typeof namespace.get !== "function") {
    throw new TypeError(
      "cloudflareStore: `namespace` must be the Durable Object namespace bound to KeywardObject (env.KEYWARD)",
    );
  }
  if (limitObjects !== "owner" && limitObjects !== "key") {
    throw new TypeError(
      `cloudflareStore: limitObjects must be "owner" or "key", got ${String(limitObjects)}`,
    );
  }
  const ttlMs = options.cacheTtlMs ?? 60_000;
  const maxEntries = options.maxCachedKeys ?? 10_000;
  if (!(ttlMs >= 0) || !(maxEntries >= 1)) {
    throw new TypeError(
      "cloudflareStore: cacheTtlMs must be 0 or more and maxCachedKeys 1 or more",
    );
  }
  const clock = options.clock ?? systemClock;
  const cache = keyCache({ ttlMs, maxEntries, clock });

  // Ids are derived once per name. A stub is made per call: Workers refuses a stub made while
  // serving one request for I/O on behalf of another, and making one costs no round trip.
  const ids = new Map<string, unknown>();
  const call = <T>(object: string, method: string, ...args: unknown[]): Promise<T> => {
    let id = ids.get(object);
    if (id === undefined) {
      id = namespace.idFromName(object);
      if (ids.size >= maxEntries) ids.delete(ids.keys().next().value!);
      ids.set(object, id);
    }
    return callObject<T>(namespace.get(id as never), method, args, prefix);
  };
  const keysObject = keysObjectName(prefix);
  const onKeys = <T>(method: string, ...args: unknown[]) => call<T>(keysObject, method, ...args);

  /**
   * A prune of the `keys` object in batches of `pruneBatch` rows, one call each, until one comes
   * back short: the object serves nothing else while a call runs, so its other calls (verifications'
   * usage writes, events) go between them. Answers how many rows went.
   */
  const pruneInBatches = async (method: "usage.prune" | "events.prune", before: unknown) => {
    let pruned = 0;
    for (;;) {
      const batch = await onKeys<number>(method, before, pruneBatch);
      pruned += batch;
      if (batch < pruneBatch) return pruned;
    }
  };

  /** A record from the `keys` object, noted in the cache (under `hash` when it was found by it). */
  const seen = (key: StoredKey | null, hash?: string) =>
    key === null ? null : cache.remember(key, hash);
  /** A changed record: its cached entries go, and the new version is the one verified with. */
  const changed = (key: StoredKey | null) => {
    if (key !== null) cache.forget(key.id);
    return seen(key);
  };

  const keys: CloudflareStore["keys"] = {
    peek: (hash) => cache.peek(hash),
    async create(key, events) {
      await onKeys("keys.create", key, events ?? null);
    },
    async findByHash(hash) {
      return seen(await onKeys<StoredKey | null>("keys.findByHash", hash), hash);
    },
    async findById(id) {
      return seen(await onKeys<StoredKey | null>("keys.findById", id));
    },
    async listByOwner(owner, listOptions) {
      const found = await onKeys<StoredKey[]>("keys.listByOwner", owner, listOptions ?? {});
      return found.map((key) => seen(key)!);
    },
    countLiveByOwner: (owner, now) => onKeys("keys.countLiveByOwner", owner, now),
    listLive: (query) => onKeys("keys.listLive", query),
    listExpiring: (query) => onKeys("keys.listExpiring", query),
    async rotate(rotation, events) {
      return changed(await onKeys("keys.rotate", rotation, events ?? null));
    },
    async revoke(id, revokedAt, events) {
      return changed(await onKeys("keys.revoke", id, revokedAt, events ?? null));
    },
    async update(id, changes, events, expectedVersion) {
      return changed(
        await onKeys("keys.update", id, changes, events ?? null, expectedVersion ?? null),
      );
    },
    async setOwnerTier(owner, tier) {
      const updated = await onKeys<StoredKey[]>("keys.setOwnerTier", owner, tier);
      return updated.map((key) => changed(key)!);
    },
    async setLimits(id, limits) {
      return changed(await onKeys("keys.setLimits", id, limits));
    },
    importKeys: (imported) => onKeys("keys.importKeys", imported),
    async rehash(id, from, to) {
      return changed(await onKeys("keys.rehash", id, from, to));
    },
  };

  /** Where a key's limits are: its owner, from the cache or (once per isolate) the `keys` object. */
  const ownerOfKey = async (keyId: string): Promise<string | null> => {
    const known = cache.known(keyId);
    if (known !== undefined) return known.owner;
    const owner = await onKeys<string | null>("keys.ownerOf", keyId);
    if (owner !== null) cache.locate(keyId, owner);
    return owner;
  };

  /** The version check of a limit call about `keyId`: the record this isolate verified with. */
  const checkOf = (keyId: string): VersionCheck | null => {
    const known = cache.known(keyId);
    return known === undefined || known.version === 0 ? null : { keyId, version: known.version };
  };

  /**
   * The decision of a limit call; for one refused as stale (nothing spent), core's
   * `KeyChangedError` with the key's current record, which `verify` checks the request with again.
   */
  const decided = async <T>(answer: LimitAnswer<T>, keyId: string | undefined): Promise<T> => {
    if ("decision" in answer) return answer.decision;
    if (keyId === undefined) throw new Error("KeywardObject: a call about no key refused as stale");
    cache.forget(keyId);
    throw new KeyChangedError(await keys.findById(keyId));
  };

  const decidedRead = <T>(answer: { decision: T } | { elsewhere: true }): T => {
    if (!("decision" in answer)) throw new Error("KeywardObject: a read was not answered");
    return answer.decision;
  };

  const rateLimits: RateLimitStore = {
    // Every isolate sees the same state: quotas and credits stay here, all layers in one step.
    shared: true,
    async consume(bucket, policy, now) {
      const parsed = parseBucket(bucket);
      const keyId = parsed?.kind === "key" ? parsed.keyId : undefined;
      let object = bucketObjectName(prefix, bucket);
      if (keyId !== undefined) {
        const owner = limitObjects === "key" ? undefined : await ownerOfKey(keyId);
        if (limitObjects === "key") object = keyObjectName(prefix, keyId);
        else if (owner !== null && owner !== undefined) object = ownerObjectName(prefix, owner);
      }
      const check = keyId === undefined ? null : checkOf(keyId);
      const answer = await call<LimitAnswer<Awaited<ReturnType<RateLimitStore["consume"]>>>>(
        object,
        "limits.consume",
        bucket,
        policy,
        now,
        check,
      );
      return decided(answer, keyId);
    },
    async consumeLayers({ owner, layers, now }) {
      const keyId = keyIdOf(layers);
      if (isGiveBack(layers)) {
        return callWhereHeld(call, whereHeld(owner, keyId), "limits.giveBack", layers, now);
      }
      const object = limitObjectOf(owner, keyId, layers);
      const check = keyId === undefined ? null : checkOf(keyId);
      const answer = await call<
        LimitAnswer<Awaited<ReturnType<NonNullable<RateLimitStore["consumeLayers"]>>>>
      >(object, "limits.consumeLayers", layers, now, check);
      return decided(answer, keyId);
    },
    async readLayers({ owner, layers, now }) {
      const keyId = keyIdOf(layers);
      // A read of a key's rate limit goes where its requests go; one of its allowances only (a
      // usage report) where they were counted.
      if (layers.some((layer) => layer.layer === "key")) {
        const object = limitObjectOf(owner, keyId, layers);
        return decidedRead(await call(object, "limits.readLayers", layers, now));
      }
      return callWhereHeld(call, whereHeld(owner, keyId), "limits.readLayers", layers, now);
    },
  };

  /** Where a call without the key's own rate limit may be counted (`protocol/where-held.ts`). */
  function whereHeld(owner: string, keyId: string | undefined) {
    return { prefix, owner, keyId: limitObjects === "key" ? keyId : undefined };
  }

  /**
   * Whose key a request's layers are about: the key layer's (`key:<id>`), or, in a usage report or
   * a give-back without one, a credits layer's (`credits:<id>`, budgets' `budget:key:<id>`).
   */
  function keyIdOf(layers: readonly LimitLayer[]): string | undefined {
    for (const layer of layers) {
      if (layer.layer === "key") {
        const parsed = parseBucket(layer.bucket);
        if (parsed?.kind === "key") return parsed.keyId;
      }
      if (layer.layer === "credits") {
        if (layer.bucket.startsWith(creditsBucketPrefix)) {
          return layer.bucket.slice(creditsBucketPrefix.length);
        }
        if (layer.bucket.startsWith(keyBudgetBucketPrefix)) {
          return layer.bucket.slice(keyBudgetBucketPrefix.length);
        }
      }
    }
    return undefined;
  }

  /**
   * The object a request's layers are applied in: the owner's, unless limits are kept per key and
   * every layer is the key's own (its rate limit, its credits, its budget); a layer the owner's
   * keys share (an owner rate limit, a quota, an owner budget) must be counted in one place.
   */
  function limitObjectOf(
    owner: string,
    keyId: string | undefined,
    layers: readonly LimitLayer[],
  ): string {
    if (limitObjects === "key" && keyId !== undefined) {
      const own = (layer: LimitLayer) =>
        layer.layer === "key" ||
        (layer.layer === "credits" &&
          (layer.bucket === `${creditsBucketPrefix}${keyId}` ||
            layer.bucket === `${keyBudgetBucketPrefix}${keyId}`));
      if (layers.every(own)) return keyObjectName(prefix, keyId);
    }
    return ownerObjectName(prefix, owner);
  }

  const usage: UsageStore = {
    async record(increments) {
      if (increments.length > 0) await onKeys("usage.record", increments);
    },
    read: (keyId) => onKeys("usage.read", keyId),
    async lastUsed(keyIds) {
      return new Map(
        await onKeys<[string, { at: number; useFields?: string }][]>("usage.lastUsed", keyIds),
      );
    },
    prune: (beforeDay) => pruneInBatches("usage.prune", beforeDay),
  };

  const events: EventLog = {
    list: (query) => onKeys("events.list", query),
    prune: (before) => pruneInBatches("events.prune", before),
    append: (entries, now) => onKeys("events.append", entries, now),
  };

  const outbox: WebhookOutbox = {
    dispatch: (routes, limit, now) => onKeys("outbox.dispatch", routes, limit, now),
    claim: (claim) => onKeys("outbox.claim", claim),
    settle: (id, lease, outcome) => onKeys("outbox.settle", id, lease, outcome),
    list: (query) => onKeys("outbox.list", query),
    async redeliver(id, now) {
      return (await onKeys("outbox.redeliver", id, now)) ?? undefined;
    },
  };

  return {
    keys,
    usage,
    rateLimits,
    events,
    outbox,
    holds: cloudflareHoldStore(call, prefix, options.releaseHoldsAtTtl ?? true),
    async dump(limitObjectNames = []) {
      const dumped: Record<string, unknown> = { [keysObject]: await onKeys("dump") };
      for (const name of limitObjectNames) dumped[name] = await call(name, "dump");
      return dumped;
    },
    // Nothing to release: no connection, no timer. The key cache stays, so a Worker that closes
    // a per-request Keyward after each response (`ctx.waitUntil(keyward.close())`) keeps it warm.
    async close() {},
  };
}
