/**
 * `KeyStore` on Redis, for deployments that keep everything in Redis. Each operation is one
 * script, so `create`'s uniqueness checks, `rotate`'s compare-and-set and `revoke`'s set-once are
 * atomic: Redis runs one script at a time. Persist Redis (AOF) if keys must survive a restart.
 * A change that comes with events runs the script's `withEvents` variant, which writes them in the
 * same script, only if the change happened.
 */
import type { KeyRotation, KeyStore, StoredEvent, StoredKey } from "@keyward/core";
import { type CallGuard, ownerOfKey } from "@keyward/core/toolkit";
import type { RedisConnection } from "../client/redis-connection.js";
import { eventWrites, redisEventLog } from "../events/redis-event-log.js";
import type { KeyNames } from "../key-names.js";
import { withEvents } from "../lua/events.js";
import { importKeysScript, rehashKeyScript } from "../lua/import-keys.js";
import {
  countLiveKeysByOwnerScript,
  createKeyScript,
  findKeyByHashScript,
  findKeyByIdScript,
  indexExpiringKeysScript,
  listExpiringKeysScript,
  listKeysByOwnerScript,
  listLiveKeysScript,
  revokeKeyScript,
  rotateKeyScript,
  setKeyLimitsScript,
  setOwnerTierScript,
  updateKeyScript,
} from "../lua/keys.js";
import { fromKeyFields, toFeatureFieldChanges, toKeyFields, toUpdateFields } from "./key-fields.js";

/**
 * How long the index of a secret in its grace is kept: the grace, measured from the rotation, plus
 * an hour for clocks that disagree. Past it the lookup finds nothing, which is what verification
 * decides from the record's deadline anyway.
 */
function previousIndexTtlMs(rotatedAt: number, graceEnd: number | null): number {
  if (graceEnd === null) return 0;
  return Math.max(graceEnd - rotatedAt, 0) + 3_600_000;
}

export function redisKeyStore(
  connection: RedisConnection,
  names: KeyNames,
  guard: CallGuard,
): KeyStore & { events: ReturnType<typeof redisEventLog> } {
  const run = (script: typeof createKeyScript, keys: string[], args: string[]) =>
    guard.run(() => connection.run(script, keys, args), script.name);
  /**
   * Records stored before the expiring-keys index existed are added to it once, by the first
   * `listExpiring` of any instance (a marker says it is done); later records join it as they are
   * created. Until it is done, every call of this instance takes part in it (the steps are safe to
   * repeat and to run on several instances at once).
   */
  let indexed: Promise<void> | undefined;
  const indexOldRecords = () => {
    indexed ??= (async () => {
      let cursor = "0";
      do {
        cursor = String(
          await run(
            indexExpiringKeysScript,
            [names.expiringKeys, names.expiringIndexed],
            [cursor, names.keyRecordPattern, "500"],
          ),
        );
      } while (cursor !== "done");
    })().catch((error) => {
      indexed = undefined; // tried again by the next call
      throw error;
    });
    return indexed;
  };

  const eventVariants = new Map(
    [createKeyScript, rotateKeyScript, revokeKeyScript, updateKeyScript].map((script) => [
      script,
      withEvents(script),
    ]),
  );
  /** `run`, with the events' keys and arguments after the script's own when there are any. */
  const change = (
    script: typeof createKeyScript,
    keys: string[],
    args: string[],
    events: readonly StoredEvent[] | undefined,
  ) => {
    if (!events?.length) return run(script, keys, args);
    const writes = eventWrites(names, events);
    return run(eventVariants.get(script)!, [...keys, ...writes.keys], [...args, ...writes.args]);
  };

  return {
    async create(key: StoredKey, events) {
      const keys = [
        names.keyRecord(key.id),
        names.keyHash(key.secretHash),
        names.owner(ownerOfKey(key)),
        names.expiringKeys,
        names.ownerNewest(ownerOfKey(key)),
        names.liveKeys,
      ];
      if (key.previousSecretHash !== null) keys.push(names.keyHash(key.previousSecretHash));
      const outcome = await change(createKeyScript, keys, [key.id, ...toKeyFields(key)], events);
      if (outcome === 1) throw new Error(`A key with id ${key.id} already exists`);
      if (outcome === 2) throw new Error("A key with this secret hash already exists");
    },

    async findByHash(secretHash) {
      const flat = await run(
        findKeyByHashScript,
        [names.keyHash(secretHash)],
        [names.keyRecordPrefix],
      );
      const key = fromKeyFields(flat as string[] | null);
      // Only the current secret and a grace's previous one find the record (the script unindexes
      // every other); checked here too, so no index left behind by hand could ever answer.
      if (key && key.secretHash !== secretHash && key.previousSecretHash !== secretHash)
        return null;
      return key;
    },

    async findById(id) {
      return fromKeyFields((await run(findKeyByIdScript, [names.keyRecord(id)], [])) as string[]);
    },

    async listByOwner(owner, options = {}) {
      const { limit, after } = options;
      // The script pages the owner's listing index in `newestKeyFirst` order: only the page's
      // records cross the wire, whatever the owner holds.
      const records = (await run(
        listKeysByOwnerScript,
        [names.owner(owner), names.ownerNewest(owner)],
        [
          names.keyRecordPrefix,
          limit === undefined ? "" : String(limit),
          after ? String(after.createdAt) : "",
          after ? after.id : "",
        ],
      )) as string[][];
      return records.map((flat) => fromKeyFields(flat)!);
    },

    async countLiveByOwner(owner, now) {
      // Counted in Redis: only the number crosses the wire, not the owner's records.
      const live = await run(
        countLiveKeysByOwnerScript,
        [names.owner(owner)],
        [names.keyRecordPrefix, String(now)],
      );
      return Number(live);
    },

    async listExpiring({ from, to, limit, after }) {
      await indexOldRecords();
      const records = (await run(
        listExpiringKeysScript,
        [names.expiringKeys],
        [
          String(from),
          String(to),
          String(limit),
          after ? String(after.expiresAt) : "",
          after ? after.id : "",
          names.keyRecordPrefix,
        ],
      )) as string[][];
      return records.map((flat) => fromKeyFields(flat)!);
    },

    // Off the live keys' index, by id: one page per call, for `permissions({ disableAfterUnused })`.
    async listLive({ limit, after }) {
      const records = (await run(
        listLiveKeysScript,
        [names.liveKeys],
        [String(limit), after ?? "", names.keyRecordPrefix],
      )) as string[][];
      return records.map((flat) => fromKeyFields(flat)!);
    },

    async rotate({ id, expectedHash, secretHash, hint, rotatedAt, ...rest }: KeyRotation, events) {
      const graceEnd = rest.previousSecretExpiresAt ?? null;
      const fieldChanges = toFeatureFieldChanges(rest.fields);
      const outcome = await change(
        rotateKeyScript,
        [names.keyRecord(id), names.keyHash(expectedHash), names.keyHash(secretHash)],
        [
          expectedHash,
          secretHash,
          hint,
          String(rotatedAt),
          id,
          graceEnd === null ? "" : String(graceEnd),
          String(previousIndexTtlMs(rotatedAt, graceEnd)),
          names.keyHashPrefix,
          rest.expectedVersion === undefined ? "" : String(rest.expectedVersion),
          String(fieldChanges.set.length),
          ...fieldChanges.set,
          ...fieldChanges.unset,
        ],
        events,
      );
      if (outcome === 1) throw new Error("A key with this secret hash already exists");
      return fromKeyFields(outcome as string[] | null);
    },

    async revoke(id, revokedAt, events) {
      const flat = await change(
        revokeKeyScript,
        [names.keyRecord(id), names.expiringKeys, names.liveKeys],
        [String(revokedAt), id],
        events,
      );
      return fromKeyFields(flat as string[] | null);
    },

    async update(id, changes, events, expectedVersion) {
      const { set, unset } = toUpdateFields(changes);
      const flat = await change(
        updateKeyScript,
        [names.keyRecord(id)],
        [
          expectedVersion === undefined ? "" : String(expectedVersion),
          String(set.length),
          ...set,
          ...unset,
        ],
        events,
      );
      return fromKeyFields(flat as string[] | null);
    },

    async setOwnerTier(owner, tier) {
      const records = (await run(
        setOwnerTierScript,
        [names.owner(owner)],
        [names.keyRecordPrefix, tier],
      )) as string[][];
      return records.map((flat) => fromKeyFields(flat)!);
    },

    async setLimits(id, limits) {
      const json = limits === null ? "" : JSON.stringify(limits);
      const flat = await run(setKeyLimitsScript, [names.keyRecord(id)], [json]);
      return fromKeyFields(flat as string[] | null);
    },

    async importKeys(batch) {
      if (batch.length === 0) return [];
      const keys: string[] = [];
      const args: string[] = [String(batch.length)];
      for (const key of batch) {
        const owner = ownerOfKey(key);
        keys.push(
          names.keyRecord(key.id),
          names.keyHash(key.secretHash),
          names.owner(owner),
          names.ownerNewest(owner),
        );
        const fields = toKeyFields(key);
        args.push(key.id, String(fields.length), ...fields);
      }
      keys.push(names.expiringKeys, names.liveKeys);
      const [ok, ...rest] = (await run(importKeysScript, keys, args)) as [number, ...unknown[]];
      if (ok === 0) {
        const conflicting = batch[Number(rest[0]) - 1]!;
        throw new Error(
          `A key with the secret hash of imported key ${conflicting.id} already exists`,
        );
      }
      return rest.map(String);
    },

    async rehash(id, from, to) {
      const outcome = await run(
        rehashKeyScript,
        [names.keyRecord(id), names.keyHash(from), names.keyHash(to)],
        [id, from, to],
      );
      if (outcome === 1) throw new Error("A key with this secret hash already exists");
      return fromKeyFields(outcome as string[] | null);
    },

    events: redisEventLog(connection, names, guard),
  };
}
