/**
 * Where everything lives in Redis. Every key of one principal carries the same hash tag, so on a
 * cluster a script touching them all runs on one node:
 *
 * | key | holds |
 * |---|---|
 * | `<prefix>usage:{key:<id>}` | API key `<id>`: its usage, and its rate-limit state (field `rl`) |
 * | `<prefix>rl:{<bucket>}` | the rate-limit state of any other bucket (`user:<sub>`), with a TTL |
 * | `<prefix>layer:{<owner>}:<bucket>` | a layered limit's state (its owner's shared allowance and quota, a key's credits; a key's own limit on a cluster) |
 * | `<prefix>counter:{<owner>}:<counter>` | a feature's counter (a hash) added to with the owner's layers (`CounterIncrement`), e.g. metering's ledger |
 * | `<prefix>{keys}:id:<id>` | a key record (a hash) |
 * | `<prefix>{keys}:hash:<secretHash>` | the unique index from secret hash to id |
 * | `<prefix>{keys}:owner:<userId>` | the ids of a user's keys (a set) |
 * | `<prefix>{keys}:org:<organizationId>` | the ids of an organization's keys (a set) |
 * | `<prefix>{keys}:owner-newest:<userId>` | the same ids scored by `createdAt`, the order `listByOwner` pages in (a sorted set) |
 * | `<prefix>{keys}:org-newest:<organizationId>` | likewise for an organization |
 * | `<prefix>{keys}:event:<eventId>` | an event (a hash: its JSON and the two sets below that list it) |
 * | `<prefix>{keys}:events` | every event, ordered by time (a sorted set of `<time>:<id>`, by lex) |
 * | `<prefix>{keys}:events:owner:<type>:<id>` | an owner's events, likewise |
 * | `<prefix>{keys}:events:key:<keyId>` | a key's events, likewise |
 * | `<prefix>{keys}:event-once:<onceKey>` | a once-key of appended events: held until its value (ms), with a TTL to then |
 * | `<prefix>{keys}:expiring` | the ids of keys with an expiry, not revoked, scored by `expiresAt` (`listExpiring`) |
 * | `<prefix>{keys}:expiring-indexed` | set once every record written before that index existed is in it |
 * | `<prefix>{keys}:live` | the ids of keys not revoked, all scored 0 so that they order by id (`listLive`) |
 * | `<prefix>{keys}:webhooks:undispatched` | events not yet turned into webhook deliveries (`<time>:<id>`, by lex) |
 * | `<prefix>{keys}:webhooks:due:<endpointId>` | an endpoint's pending deliveries by the time they are due (or their lease ends) |
 * | `<prefix>{keys}:webhooks:delivery:<id>` | a webhook delivery (a hash) |
 * | `<prefix>{keys}:webhooks:list:<all\|pending\|delivered\|dead>` | deliveries as `<time>:<id>`, by lex |
 *
 * Keyward limits an API key under the bucket `key:<id>` (`bucketFor.key` in `@keyward/core/toolkit`,
 * read back with `parseBucket`); its state sits in the key's usage hash so that one request reads
 * and writes one Redis key. That hash is kept for good (usage is), so the state field is overwritten by each request and ignored once expired rather than given a TTL.
 *
 * Layered limits are all tagged with the owner (`ownerLimitKey`, `user:<id>`), a key's credits
 * included: every layer of one request is in one slot, so one script steps them all atomically on a
 * cluster too. A key's own layer is there on a cluster; on a single server, where any keys may
 * share a script, it stays in the key's usage hash, as on the single-layer path.
 *
 * Events carry the key records' tag: a change and its events are written by one script. So does
 * the webhook outbox, whose undispatched mark is written by that same script, and whose dispatch
 * and claims read events and deliveries in one script each.
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
  /** A feature's counter of `owner` (`CounterIncrement.counter`), in the slot of its layers. */
  counter(owner: string, counter: string): string;
  usage(keyId: string): string;
  keyRecord(id: string): string;
  /** `keyRecord(id)` is `keyRecordPrefix + id` (for scripts that look a record up by id). */
  keyRecordPrefix: string;
  keyHash(secretHash: string): string;
  /** `keyHash(hash)` is `keyHashPrefix + hash` (for scripts that find a hash's index in a record). */
  keyHashPrefix: string;
  /** The set of an owner's key ids; a user's keeps the name it had before organizations. */
  owner(owner: Owner): string;
  /**
   * The owner's key ids again, scored by `createdAt`: what `listByOwner` reads a page from. Written
   * with the set; built from it by the first listing where it is missing (an older release's data).
   */
  ownerNewest(owner: Owner): string;
  /** One event's hash; `eventRecord(id)` is `eventRecordPrefix + id`. */
  eventRecord(id: string): string;
  eventRecordPrefix: string;
  /** Every event, in time order: where retention prunes from. */
  allEvents: string;
  ownerEvents(owner: Owner): string;
  keyEvents(keyId: string): string;
  /** The marker of a once-key (`AppendedEvent.once`). */
  eventOnce(onceKey: string): string;
  /** Key ids with an expiry, scored by it. */
  expiringKeys: string;
  /** Key ids not revoked, ordered by id (all scored 0, read by lex). */
  liveKeys: string;
  /** Present once the records stored before `expiringKeys` existed have been indexed. */
  expiringIndexed: string;
  /** A `SCAN MATCH` pattern of every key record (the prefix's glob characters escaped). */
  keyRecordPattern: string;
  webhooks: {
    undispatched: string;
    /** `duePrefix + endpointId`: that endpoint's pending deliveries, scored by when they are due. */
    duePrefix: string;
    /** `deliveryPrefix + id` is a delivery's hash. */
    deliveryPrefix: string;
    /** `listPrefix + status` (or `all`) lists deliveries. */
    listPrefix: string;
  };
  channel: string;
}

export const defaultPrefix = "keyward:";

export function keyNames(prefix: string): KeyNames {
  if (typeof prefix !== "string" || /[{}]/.test(prefix)) {
    // A brace in the prefix would become every key's hash tag and put them all in one slot.
    throw new TypeError(`@keyward/redis: prefix must be a string without braces, got ${prefix}`);
  }
  const keyRecordPrefix = `${prefix}{keys}:id:`;
  const keyHashPrefix = `${prefix}{keys}:hash:`;
  const eventRecordPrefix = `${prefix}{keys}:event:`;
  return {
    rateLimit: (bucket) => `${prefix}rl:{${bucket}}`,
    layer: (owner, bucket) => `${prefix}layer:{${owner}}:${bucket}`,
    counter: (owner, counter) => `${prefix}counter:{${owner}}:${counter}`,
    usage: (keyId) => `${prefix}usage:{key:${keyId}}`,
    keyRecord: (id) => keyRecordPrefix + id,
    keyRecordPrefix,
    keyHash: (secretHash) => keyHashPrefix + secretHash,
    keyHashPrefix,
    owner: (owner) =>
      owner.type === "user"
        ? `${prefix}{keys}:owner:${owner.id}`
        : `${prefix}{keys}:org:${owner.id}`,
    ownerNewest: (owner) =>
      owner.type === "user"
        ? `${prefix}{keys}:owner-newest:${owner.id}`
        : `${prefix}{keys}:org-newest:${owner.id}`,
    eventRecord: (id) => eventRecordPrefix + id,
    eventRecordPrefix,
    allEvents: `${prefix}{keys}:events`,
    ownerEvents: (owner) => `${prefix}{keys}:events:owner:${owner.type}:${owner.id}`,
    keyEvents: (keyId) => `${prefix}{keys}:events:key:${keyId}`,
    eventOnce: (onceKey) => `${prefix}{keys}:event-once:${onceKey}`,
    expiringKeys: `${prefix}{keys}:expiring`,
    expiringIndexed: `${prefix}{keys}:expiring-indexed`,
    liveKeys: `${prefix}{keys}:live`,
    keyRecordPattern: `${keyRecordPrefix.replace(/[*?[\]\\]/g, "\\$&")}*`,
    webhooks: {
      undispatched: `${prefix}{keys}:webhooks:undispatched`,
      duePrefix: `${prefix}{keys}:webhooks:due:`,
      deliveryPrefix: `${prefix}{keys}:webhooks:delivery:`,
      listPrefix: `${prefix}{keys}:webhooks:list:`,
    },
    channel: `${prefix}invalidations`,
  };
}
