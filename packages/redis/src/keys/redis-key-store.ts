/**
 * `KeyStore` on Redis, for deployments that keep everything in Redis. Each operation is one
 * script, so `create`'s uniqueness checks, `rotate`'s compare-and-set and `revoke`'s set-once are
 * atomic: Redis runs one script at a time. Persist Redis (AOF) if keys must survive a restart.
 */
import type { KeyRotation, KeyStore, StoredKey } from "@keyward/core";
import { type CallGuard, newestKeyFirst, ownerOfKey, pageOfKeys } from "@keyward/core/toolkit";
import type { RedisConnection } from "../client/redis-connection.js";
import type { KeyNames } from "../key-names.js";
import {
  createKeyScript,
  findKeyByHashScript,
  findKeyByIdScript,
  listKeysByOwnerScript,
  revokeKeyScript,
  rotateKeyScript,
  setKeyLimitsScript,
  setOwnerTierScript,
  updateKeyScript,
} from "../lua/keys.js";
import { fromKeyFields, toKeyFields, toUpdateFields } from "./key-fields.js";

export function redisKeyStore(
  connection: RedisConnection,
  names: KeyNames,
  guard: CallGuard,
): KeyStore {
  const run = (script: typeof createKeyScript, keys: string[], args: string[]) =>
    guard.run(() => connection.run(script, keys, args));

  return {
    async create(key: StoredKey) {
      const outcome = await run(
        createKeyScript,
        [names.keyRecord(key.id), names.keyHash(key.secretHash), names.owner(ownerOfKey(key))],
        [key.id, ...toKeyFields(key)],
      );
      if (outcome === 1) throw new Error(`A key with id ${key.id} already exists`);
      if (outcome === 2) throw new Error("A key with this secret hash already exists");
    },

    async findByHash(secretHash) {
      const flat = await run(
        findKeyByHashScript,
        [names.keyHash(secretHash)],
        [names.keyRecordPrefix],
      );
      return fromKeyFields(flat as string[] | null);
    },

    async findById(id) {
      return fromKeyFields((await run(findKeyByIdScript, [names.keyRecord(id)], [])) as string[]);
    },

    async listByOwner(owner, options) {
      const records = (await run(
        listKeysByOwnerScript,
        [names.owner(owner)],
        [names.keyRecordPrefix],
      )) as string[][];
      // A set has no order: the whole set is read and sorted, then paged.
      return pageOfKeys(records.map((flat) => fromKeyFields(flat)!).sort(newestKeyFirst), options);
    },

    async rotate({ id, expectedHash, secretHash, hint, rotatedAt }: KeyRotation) {
      const outcome = await run(
        rotateKeyScript,
        [names.keyRecord(id), names.keyHash(expectedHash), names.keyHash(secretHash)],
        [expectedHash, secretHash, hint, String(rotatedAt), id],
      );
      if (outcome === 1) throw new Error("A key with this secret hash already exists");
      return fromKeyFields(outcome as string[] | null);
    },

    async revoke(id, revokedAt) {
      const flat = await run(revokeKeyScript, [names.keyRecord(id)], [String(revokedAt)]);
      return fromKeyFields(flat as string[] | null);
    },

    async update(id, changes) {
      const { set, unset } = toUpdateFields(changes);
      const flat = await run(
        updateKeyScript,
        [names.keyRecord(id)],
        [String(set.length), ...set, ...unset],
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
  };
}
