/**
 * Which Durable Object holds what. One namespace (one class, one binding) holds every role,
 * told apart by the object's name under the store's `prefix`:
 * - `keys`: the key records and their hash index, the event log and its webhook outbox, usage;
 * - `owner:<owner>`: one owner's limits (its keys' rate limits, its shared allowance, its quota,
 *   its keys' credits) and the versions of its keys, checked on every limit call;
 * - `key:<id>`: one key's own limits, where an owner's keys are spread out (`limitObjects: "key"`);
 * - `bucket:<name>`: a rate-limit bucket that is no key's (a signed-in user's, `user:<sub>`);
 * - `holds`: budgets' holds, each released at its TTL by the object's alarm.
 */

export const keysObjectName = (prefix: string) => `${prefix}keys`;
export const ownerObjectName = (prefix: string, owner: string) => `${prefix}owner:${owner}`;
export const keyObjectName = (prefix: string, keyId: string) => `${prefix}key:${keyId}`;
export const bucketObjectName = (prefix: string, bucket: string) => `${prefix}bucket:${bucket}`;
/** Budgets' holds (`budgets({ holds: store.holds })`), one object per store. */
export const holdsObjectName = (prefix: string) => `${prefix}holds`;
