/**
 * The name of a rate-limit bucket: what `RateLimitStore.consume` is given as its key. Keyward
 * limits an API key under `key:<id>` and a signed-in user under `user:<sub>`; a store may lay out
 * state by it (Redis keeps a key's limit beside its usage), so both sides build and read the name
 * here and nowhere else.
 */
export type RateLimitBucket = `key:${string}` | `user:${string}`;

/** Whose allowance a bucket holds. */
export type BucketOwner = { kind: "key"; keyId: string } | { kind: "user"; userId: string };

/**
 * @example
 * await store.consume(bucketFor.key(record.id), policy, now);
 * await store.consume(bucketFor.user(claims.sub), policy, now);
 */
export const bucketFor = {
  /** The bucket of one API key, at its tier. */
  key: (keyId: string): `key:${string}` => `key:${keyId}`,
  /** The bucket of a user calling with their session, at their account's tier. */
  user: (userId: string): `user:${string}` => `user:${userId}`,
} as const;

/**
 * Whose bucket this is, or undefined for a name Keyward does not build.
 *
 * @example
 * parseBucket("key:k_123"); // { kind: "key", keyId: "k_123" }
 */
export function parseBucket(bucket: string): BucketOwner | undefined {
  if (bucket.startsWith("key:")) return { kind: "key", keyId: bucket.slice(4) };
  if (bucket.startsWith("user:")) return { kind: "user", userId: bucket.slice(5) };
  return undefined;
}
