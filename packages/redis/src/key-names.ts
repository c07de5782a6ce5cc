/**
 * Where everything lives in Redis. Every key of one principal carries the same hash tag, so on a
 * cluster a script touching them all runs on one node:
 *
 * | key | holds |
 * |---|---|
 * | `<prefix>rl:{<bucket>}` | rate-limit state of `<bucket>` (`key:<id>` or `user:<sub>`) |
 * | `<prefix>usage:{key:<id>}` | usage of API key `<id>`: same tag as its rate-limit bucket |
 * | `<prefix>{keys}:id:<id>` | a key record (a hash) |
 * | `<prefix>{keys}:hash:<secretHash>` | the unique index from secret hash to id |
 * | `<prefix>{keys}:owner:<ownerId>` | the ids of an owner's keys (a set) |
 *
 * Key records share one tag on purpose: a rotation changes the record, the old index entry and the
 * new one atomically, which a cluster allows only within one slot. They are small and read through
 * the verification cache, so one shard holding them all is no bottleneck.
 */

export interface KeyNames {
  rateLimit(bucket: string): string;
  usage(keyId: string): string;
  /** The rate-limit bucket Keyward uses for an API key; its usage shares its hash tag. */
  keyBucket(keyId: string): string;
  keyRecord(id: string): string;
  /** `keyRecord(id)` is `keyRecordPrefix + id` (for scripts that look a record up by id). */
  keyRecordPrefix: string;
  keyHash(secretHash: string): string;
  owner(ownerId: string): string;
  channel: string;
}

export const defaultPrefix = "keyward:";

export function keyNames(prefix: string): KeyNames {
  if (typeof prefix !== "string" || /[{}]/.test(prefix)) {
    // A brace in the prefix would become every key's hash tag and put them all in one slot.
    throw new TypeError(`@keyward/redis: prefix must be a string without braces, got ${prefix}`);
  }
  const keyRecordPrefix = `${prefix}{keys}:id:`;
  return {
    rateLimit: (bucket) => `${prefix}rl:{${bucket}}`,
    usage: (keyId) => `${prefix}usage:{key:${keyId}}`,
    keyBucket: (keyId) => `key:${keyId}`,
    keyRecord: (id) => keyRecordPrefix + id,
    keyRecordPrefix,
    keyHash: (secretHash) => `${prefix}{keys}:hash:${secretHash}`,
    owner: (ownerId) => `${prefix}{keys}:owner:${ownerId}`,
    channel: `${prefix}invalidations`,
  };
}
