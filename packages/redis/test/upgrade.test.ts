/**
 * Records written by the current release (0.1.x, before organizations) read back through this
 * one: Redis needs no migration step, because the fields added since (`ownerType`, `createdBy`,
 * `environment`, `allowedIps`) have defaults that describe the old records exactly. The records are written here with raw
 * commands in that release's layout, not through the store, so the test keeps holding when the
 * store changes.
 */
import { createKeyward, manualClock, memoryStore } from "@keyward/core";
import { events } from "@keyward/core/events";
import { lifecycle } from "@keyward/core/lifecycle";
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
      previousSecretHash: null,
      previousSecretExpiresAt: null,
      ownerTier: "pro",
      disabledAt: null,
      metadata: null,
      // A record written before versions reads as a new key's first version.
      version: 1,
    };
    expect(await store.keys!.findByHash(hash)).toEqual(expected);
    expect(await store.keys!.listByOwner({ type: "user", id: "acme" })).toEqual([expected]);
    // An organization with the same id is another owner.
    expect(await store.keys!.listByOwner({ type: "organization", id: "acme" })).toEqual([]);
    // Writes keep working on the old record.
    const changed = await store.keys!.setOwnerTier({ type: "user", id: "acme" }, "free");
    expect(changed).toEqual([{ ...expected, ownerTier: "free", version: 2 }]);
    // An update's compare-and-set works on the versions counted from there.
    expect(await store.keys!.update("key_old", { name: "stale" }, undefined, 1)).toBeNull();
    const renamed = await store.keys!.update("key_old", { name: "renamed" }, undefined, 2);
    expect(renamed).toMatchObject({ name: "renamed", version: 3 });
    expect(await client.hget(`${prefix}{keys}:id:key_old`, "version")).toBe("3");
    const revoked = await store.keys!.revoke("key_old", 1_767_225_700_000);
    expect(revoked).toMatchObject({ id: "key_old", ownerType: "user", createdBy: "acme" });
    await store.close();
  });

  it("reads an old key as its prefix's environment, usable anywhere, and takes an allowlist", async () => {
    const hash = "ce".repeat(32);
    const id = "key_0ldEnvironmentKey0000000";
    const record = `${prefix}{keys}:id:${id}`;
    await client.hset(record, {
      id,
      ownerId: "bob",
      name: "old key",
      scopes: '["profile:read"]',
      tier: "pro",
      secretHash: hash,
      hint: "sk_live_…wxyz",
      createdAt: "1767225600000",
      ownerTier: "pro",
    });
    await client.set(`${prefix}{keys}:hash:${hash}`, id);
    await client.sadd(`${prefix}{keys}:owner:bob`, id);

    const store = redisStore({ client, prefix, keys: true });
    const keyward = createKeyward({
      store,
      scopes: { "profile:read": "Read" },
      tiers: { pro: { rateLimit: { limit: 10, window: "1m" } } },
      jwt: false,
      keys: { environments: { test: "sk_test_", live: "sk_live_" } },
      features: [lifecycle()],
    });
    const [listed] = await keyward.keys.list("bob");
    expect(listed).toMatchObject({ id, environment: "live" });
    expect(listed && "allowedIps" in listed).toBe(false);
    const updated = await keyward.keys.update("bob", id, { allowedIps: ["::ffff:192.0.2.1"] });
    expect(updated.allowedIps).toEqual(["192.0.2.1"]);
    expect(await client.hget(record, "field:allowedIps")).toBe('["192.0.2.1"]');
    // The record's other fields are as the old release wrote them: no environment was added.
    expect(await client.hexists(record, "environment")).toBe(0);
    await keyward.keys.update("bob", id, { allowedIps: null });
    expect(await client.hexists(record, "field:allowedIps")).toBe(0);
    await keyward.close();
  });

  it("rotates a record written before graceful rotation with a grace, and without one", async () => {
    const hash = "c1".repeat(32);
    // The layout this branch's predecessor wrote for an organization's disabled key with limits.
    await client.hset(`${prefix}{keys}:id:key_org`, {
      id: "key_org",
      ownerId: "acme",
      ownerType: "organization",
      createdBy: "bob",
      name: "org key",
      scopes: '["profile:read"]',
      tier: "free",
      secretHash: hash,
      hint: "sk_live_…efgh",
      createdAt: "1767225600000",
      rotatedAt: "1767225650000",
      disabledAt: "1767225660000",
      metadata: '{"team":"ops"}',
      limits: '{"credits":{"remaining":5,"grantedAt":1}}',
    });
    await client.set(`${prefix}{keys}:hash:${hash}`, "key_org");
    await client.sadd(`${prefix}{keys}:org:acme`, "key_org");

    const store = redisStore({ client, prefix, keys: true });
    const old = await store.keys!.findByHash(hash);
    expect(old).toMatchObject({
      ownerType: "organization",
      createdBy: "bob",
      metadata: { team: "ops" },
      limits: { credits: { remaining: 5 } },
      previousSecretHash: null,
      previousSecretExpiresAt: null,
    });
    const next = "ef".repeat(32);
    const rotated = await store.keys!.rotate({
      id: "key_org",
      expectedHash: hash,
      secretHash: next,
      hint: "sk_live_…ijkl",
      rotatedAt: 1_767_225_700_000,
      previousSecretExpiresAt: 1_767_225_760_000,
    });
    expect(rotated).toEqual({
      ...old,
      version: old!.version + 1,
      secretHash: next,
      hint: "sk_live_…ijkl",
      rotatedAt: 1_767_225_700_000,
      previousSecretHash: hash,
      previousSecretExpiresAt: 1_767_225_760_000,
    });
    expect((await store.keys!.findByHash(hash))?.id).toBe("key_org");
    // The replaced secret's index expires on its own, a while after the grace.
    const ttl = await client.pttl(`${prefix}{keys}:hash:${hash}`);
    expect(ttl).toBeGreaterThan(60_000);
    expect(ttl).toBeLessThanOrEqual(60_000 + 3_600_000);
    expect(await client.pttl(`${prefix}{keys}:hash:${next}`)).toBe(-1);

    const last = "01".repeat(32);
    await store.keys!.rotate({
      id: "key_org",
      expectedHash: next,
      secretHash: last,
      hint: "sk_live_…mnop",
      rotatedAt: 1_767_225_800_000,
    });
    expect(
      await client.exists(`${prefix}{keys}:hash:${hash}`, `${prefix}{keys}:hash:${next}`),
    ).toBe(0);
    expect(
      await client.hmget(
        `${prefix}{keys}:id:key_org`,
        "previousSecretHash",
        "previousSecretExpiresAt",
      ),
    ).toEqual([null, null]);
    await store.close();
  });

  it("turns events on over old records: their next change is recorded, nothing else moves", async () => {
    const hash = "cd".repeat(32);
    const id = "key_oldEvents000000000000000";
    await client.hset(`${prefix}{keys}:id:${id}`, {
      id,
      ownerId: "umbrella",
      name: "old key",
      scopes: '["profile:read"]',
      tier: "pro",
      secretHash: hash,
      hint: "sk_live_…wxyz",
      createdAt: "1767225600000",
      ownerTier: "pro",
    });
    await client.set(`${prefix}{keys}:hash:${hash}`, id);
    await client.sadd(`${prefix}{keys}:owner:umbrella`, id);
    const before = await client.hgetall(`${prefix}{keys}:id:${id}`);

    // A deadline for a shared, busy test machine, not the 100 ms default.
    const store = redisStore({ client, prefix, keys: true, timeoutMs: 2_000 });
    const memory = memoryStore();
    const keyward = createKeyward({
      store: {
        keys: store.keys!,
        events: store.events!,
        outbox: store.outbox!,
        usage: memory.usage,
        rateLimits: memory.rateLimits,
      },
      scopes: { "profile:read": "Read profiles" },
      tiers: { pro: { rateLimit: { limit: 60, window: "1m" } } },
      jwt: false,
      features: [events({ pruneIntervalMs: false })],
    });
    // No event for what happened before events existed.
    expect((await keyward.events.list({ owner: "umbrella", keyId: id })).data).toEqual([]);
    await keyward.keys.update("umbrella", id, { name: "renamed" });
    const { data } = await keyward.events.list({ owner: "umbrella", keyId: id });
    expect(data.map((event) => [event.type, event.data])).toEqual([
      ["key.updated", { changes: { name: "renamed" } }],
    ]);
    // …and its version, which an old record lacked and read as 1: the first change makes it 2.
    expect(await client.hgetall(`${prefix}{keys}:id:${id}`)).toEqual({
      ...before,
      name: "renamed",
      version: "2",
    });
    await keyward.close();
    await store.close();
  });

  it("finds keys stored before the expiring-keys index: key.expiring fires for them once", async () => {
    const own = testPrefix("upgrade-expiring");
    const now = Date.UTC(2026, 5, 1);
    const day = 86_400_000;
    // Records as the previous release's create script left them: no expiring-keys index.
    const old = async (name: string, fields: Record<string, string>) => {
      const id = `key_${name}`.padEnd(28, "0");
      const hash = crypto.randomUUID().replaceAll("-", "").repeat(2);
      await client.hset(`${own}{keys}:id:${id}`, {
        id,
        ownerId: "initech",
        name: "old key",
        scopes: '["profile:read"]',
        tier: "pro",
        secretHash: hash,
        hint: "sk_live_…abcd",
        createdAt: String(now - 30 * day),
        ownerTier: "pro",
        ...fields,
      });
      await client.set(`${own}{keys}:hash:${hash}`, id);
      await client.sadd(`${own}{keys}:owner:initech`, id);
    };
    await old("oldSoon", { expiresAt: String(now + 2 * day) });
    await old("oldLater", { expiresAt: String(now + 20 * day) });
    await old("oldRevoked", {
      expiresAt: String(now + day),
      revokedAt: String(now - day),
    });
    await old("oldForever", {});
    expect(await client.exists(`${own}{keys}:expiring`)).toBe(0);

    const store = redisStore({ client, prefix: own, keys: true, timeoutMs: 2_000 });
    const memory = memoryStore();
    const clock = manualClock(now);
    const keyward = createKeyward({
      store: {
        keys: store.keys!,
        events: store.events!,
        outbox: store.outbox!,
        usage: memory.usage,
        rateLimits: memory.rateLimits,
      },
      scopes: { "profile:read": "Read profiles" },
      tiers: { pro: { rateLimit: { limit: 60, window: "1m" } } },
      jwt: false,
      clock,
      features: [events({ pruneIntervalMs: false, expiring: { scanIntervalMs: false } })],
    });
    expect(await keyward.events.scanExpiring()).toEqual({ written: 1 });
    expect(await keyward.events.scanExpiring()).toEqual({ written: 0 });
    const { data } = await keyward.events.list({ owner: "initech", types: ["key.expiring"] });
    expect(data.map((event) => [event.keyId, event.data])).toEqual([
      ["key_oldSoon".padEnd(28, "0"), { expiresAt: new Date(now + 2 * day).toISOString() }],
    ]);
    // Indexed once, with a marker: the old records with an expiry that are not revoked, by expiry.
    expect(await client.zrange(`${own}{keys}:expiring`, 0, -1, "WITHSCORES")).toEqual([
      "key_oldSoon".padEnd(28, "0"),
      String(now + 2 * day),
      "key_oldLater".padEnd(28, "0"),
      String(now + 20 * day),
    ]);
    expect(await client.exists(`${own}{keys}:expiring-indexed`)).toBe(1);
    // Revoking an old key takes it out of the index.
    await keyward.keys.revoke("initech", "key_oldLater".padEnd(28, "0"));
    expect(await client.zrange(`${own}{keys}:expiring`, 0, -1)).toEqual([
      "key_oldSoon".padEnd(28, "0"),
    ]);
    clock.advance(15 * day);
    expect(await keyward.events.scanExpiring()).toEqual({ written: 0 });
    await keyward.close();
    await store.close();
    await deletePrefix(client, own);
  });
});
