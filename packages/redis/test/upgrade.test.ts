/**
 * Records written by the current release (0.1.x, before organizations) read back through this
 * one: Redis needs no migration step, because the fields added since (`ownerType`, `createdBy`)
 * have defaults that describe the old records exactly. The records are written here with raw
 * commands in that release's layout, not through the store, so the test keeps holding when the
 * store changes.
 */
import IORedis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisStore } from "../src/index.js";
import { localRedis, redisAvailable, testPrefix } from "./support/local-redis.js";
import { deletePrefix } from "./support/scan.js";

describe.skipIf(!redisAvailable)("a Redis database the previous release wrote", () => {
  let client: IORedis;
  const prefix = testPrefix("upgrade");

  beforeAll(() => {
    client = new IORedis(localRedis);
  });
  afterAll(async () => {
    await deletePrefix(client, prefix);
    client.disconnect();
  });

  it("reads every old key as its user's own, created by that user, and keeps working", async () => {
    const hash = "ab".repeat(32);
    // Exactly what 0.1.x's create-key script wrote: the record, the hash index, the owner set.
    await client.hset(`${prefix}{keys}:id:key_old`, {
      id: "key_old",
      ownerId: "acme",
      name: "old key",
      scopes: '["profile:read"]',
      tier: "pro",
      secretHash: hash,
      hint: "sk_live_…abcd",
      createdAt: "1767225600000",
      ownerTier: "pro",
    });
    await client.set(`${prefix}{keys}:hash:${hash}`, "key_old");
    await client.sadd(`${prefix}{keys}:owner:acme`, "key_old");

    const store = redisStore({ client, prefix, keys: true });
    const expected = {
      id: "key_old",
      ownerType: "user",
      ownerId: "acme",
      createdBy: "acme",
      name: "old key",
      scopes: ["profile:read"],
      tier: "pro",
      secretHash: hash,
      hint: "sk_live_…abcd",
      createdAt: 1_767_225_600_000,
      expiresAt: null,
      revokedAt: null,
      rotatedAt: null,
      ownerTier: "pro",
      disabledAt: null,
      metadata: null,
    };
    expect(await store.keys!.findByHash(hash)).toEqual(expected);
    expect(await store.keys!.listByOwner({ type: "user", id: "acme" })).toEqual([expected]);
    // An organization with the same id is another owner.
    expect(await store.keys!.listByOwner({ type: "organization", id: "acme" })).toEqual([]);
    // Writes keep working on the old record.
    const changed = await store.keys!.setOwnerTier({ type: "user", id: "acme" }, "free");
    expect(changed).toEqual([{ ...expected, ownerTier: "free" }]);
    const revoked = await store.keys!.revoke("key_old", 1_767_225_700_000);
    expect(revoked).toMatchObject({ id: "key_old", ownerType: "user", createdBy: "acme" });
    await store.close();
  });
});
