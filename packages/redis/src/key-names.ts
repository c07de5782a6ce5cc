/**
 * Where everything lives in Redis. Every key of one principal carries the same hash tag, so on a
 * cluster a script touching them all runs on one node:
 *
 * | key | holds |
 * |---|---|
 * | `<prefix>usage:{key:<id>}` | API key `<id>`: its usage, and its rate-limit state (field `rl`) |
 * | `<prefix>rl:{<bucket>}` | the rate-limit state of any other bucket (`user:<sub>`), with a TTL |
 * | `<prefix>layer:{<owner>}:<bucket>` | a layered limit's state (a key's, its owner's shared allowance and quota, a key's credits) |
 * | `<prefix>{keys}:id:<id>` | a key record (a hash) |
 * | `<prefix>{keys}:hash:<secretHash>` | the unique index from secret hash to id |
 * | `<prefix>{keys}:owner:<userId>` | the ids of a user's keys (a set) |
 * | `<prefix>{keys}:org:<organizationId>` | the ids of an organization's keys (a set) |
 *
 * Keyward limits an API key under the bucket `key:<id>` (`bucketFor.key` in `@keyward/core/toolkit`,
 * read back with `parseBucket`); its state sits in the key's usage hash so that one request reads
 * and writes one Redis key. That hash is kept for good (usage is), so the state field is overwritten by each request and ignored once expired rather than given a TTL.
 *
 * Layered limits are all tagged with the owner (`ownerLimitKey`, `user:<id>`), the key's own layer and
 * its credits included: every layer of one request is in one slot, so one script steps them all
 * atomically on a cluster too.
 *
 * Key records share one tag on purpose: a rotation changes the record, the old index entry and the
 * new one atomically, which a cluster allows only within one slot. They are small and read through
 * the verification cache, so one shard holding them all is no bottleneck.
 */

import type { Owner } from "@keyward/core";

export interface KeyNames {
  rateLimit(bucket: string): string;
  /** The state of one layer (`LimitLayer.bucket`) of `owner`'s requests. */
  layer(owner: string, bucket: string): string;
  usage(keyId: string): string;
  keyRecord(id: string): string;
  /** `keyRecord(id)` is `keyRecordPrefix + id` (for scripts that look a record up by id). */
  keyRecordPrefix: string;
  keyHash(secretHash: string): string;
  /** The set of an owner's key ids; a user's keeps the name it had before organizations. */
  owner(owner: Owner): string;
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
    layer: (owner, bucket) => `${prefix}layer:{${owner}}:${bucket}`,
    usage: (keyId) => `${prefix}usage:{key:${keyId}}`,
    keyRecord: (id) => keyRecordPrefix + id,
    keyRecordPrefix,
    keyHash: (secretHash) => `${prefix}{keys}:hash:${secretHash}`,
    owner: (owner) =>
      owner.type === "user"
        ? `${prefix}{keys}:owner:${owner.id}`
        : `${prefix}{keys}:org:${owner.id}`,
    channel: `${prefix}invalidations`,
  };
}
