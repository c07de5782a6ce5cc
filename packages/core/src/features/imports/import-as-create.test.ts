/**
 * An import is a create: on the memory store, each rule `keys.create` applies holds for an imported
 * key too (lifetime cap, tier within the owner's account tier, the owner tier recorded, the most
 * keys, events), every record is checked against this configuration (would `verify` find it?), and
 * every problem is listed at once, nothing written.
 */
import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { manualClock } from "../../clock.js";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import { events } from "../events/index.js";
import { lifecycle } from "../lifecycle/index.js";
import { organizations } from "../organizations/index.js";
import { permissions } from "../permissions/index.js";
import { imports } from "./index.js";

const scopes = { "profile:read": "Read" };
const tiers = {
  free: { rateLimit: { limit: 100, window: "1m" }, quota: { limit: 5, period: "day" as const } },
  pro: { rateLimit: { limit: 1000, window: "1m" }, quota: { limit: 6000, period: "day" as const } },
};
const day = 86_400_000;
const token = (prefix = "ba_") => prefix + randomBytes(30).toString("hex");
const hashOf = (secret: string) => ({
  value: createHash("sha256").update(secret).digest("hex"),
  algorithm: "sha256",
  encoding: "hex",
});

function setup(
  options: { importPrefixes?: string[]; maxKeysPerOwner?: number; maxLifetime?: string } = {},
) {
  const clock = manualClock(Date.parse("2026-06-01T00:00:00Z"));
  const store = memoryStore();
  const keyward = createKeyward({
    store,
    scopes,
    tiers,
    jwt: false,
    clock,
    logger: false,
    keys: { environments: { live: "sk_live_", test: "sk_test_" } },
    features: [
      imports(options.importPrefixes ? { prefixes: options.importPrefixes } : {}),
      permissions(options.maxLifetime ? { maxLifetime: options.maxLifetime } : {}),
      lifecycle({
        gracefulRotation: true,
        ...(options.maxKeysPerOwner ? { maxKeysPerOwner: options.maxKeysPerOwner } : {}),
      }),
      organizations({ memberships: () => [] }),
      events(),
    ],
  });
  return { keyward, store, clock };
}

describe("an import is a create", () => {
  it("caps a key with no expiry at maxLifetime and refuses one past it", async () => {
    const { keyward, store, clock } = setup({ maxLifetime: "30d" });
    const capped = token();
    const report = await keyward.imports.importKeys([
      { key: capped, owner: "alice", tier: "free" },
      { key: token(), owner: "alice", tier: "free", expiresAt: "2027-01-01T00:00:00Z" },
    ]);
    expect(report.refused).toEqual([
      {
        index: 1,
        issues: [
          expect.objectContaining({
            loc: ["expiresAt"],
            msg: expect.stringMatching(/maxLifetime/),
          }),
        ],
      },
    ]);
    expect(store.keys.snapshot()).toEqual([]);
    await keyward.imports.importKeys([{ key: capped, owner: "alice", tier: "free" }]);
    expect(store.keys.snapshot()[0]?.expiresAt).toBe(clock.now() + 30 * day);
  });

  it("keeps a key within its owner's account tier, and records that tier with it", async () => {
    const { keyward, store } = setup();
    await keyward.keys.create({
      ownerId: "free-owner",
      accountTier: "free",
      name: "n",
      scopes: ["profile:read"],
      tier: "free",
    });
    const above = await keyward.imports.importKeys([
      { key: token(), owner: "free-owner", tier: "pro" },
    ]);
    expect(above.refused[0]?.issues[0]).toMatchObject({
      loc: ["tier"],
      msg: "Value error, tier 'pro' is above the owner's account tier 'free' (give the record's accountTier to state another)",
    });
    // Within it: stored with the owner's tier, so the owner's quota (5 a day) applies at once.
    const within = token();
    await keyward.imports.importKeys([{ key: within, owner: "free-owner", tier: "free" }]);
    const imported = store.keys.snapshot().find((key) => key.hint.endsWith(within.slice(-4)));
    expect(imported?.ownerTier).toBe("free");
    const answers = [];
    for (let i = 0; i < 6; i++) {
      const result = await keyward.verify(`Bearer ${within}`, { route: "GET /x" });
      answers.push(result.ok || result.error.code);
    }
    expect(answers.slice(4)).toEqual([true, "quota_exceeded"]);
    // A new owner gets the highest tier the import gives them; a stated one is recorded.
    const stated = await keyward.imports.importKeys([
      { key: token(), owner: "new-owner", tier: "free" },
      { key: token(), owner: "new-owner", tier: "pro" },
      { key: token(), owner: "free-owner", tier: "pro", accountTier: "pro" },
    ]);
    expect(stated.ownerTiers).toEqual([
      { owner: { type: "user", id: "new-owner" }, tier: "pro" },
      { owner: { type: "user", id: "free-owner" }, tier: "pro" },
    ]);
    expect(await keyward.keys.accountTier("new-owner")).toBe("pro");
    expect(await keyward.keys.accountTier("free-owner")).toBe("pro");
  });

  it("keeps an organization's recorded tier: its tierless member still creates at it", async () => {
    const { keyward } = setup();
    const acme = { type: "organization" as const, id: "acme" };
    await keyward.keys.create({
      owner: acme,
      createdBy: "admin",
      accountTier: "pro",
      name: "n",
      scopes: ["profile:read"],
      tier: "pro",
    });
    await keyward.imports.importKeys([
      { key: token(), owner: acme, tier: "free", createdAt: "2026-05-31T00:00:00Z" },
      { key: token(), owner: acme, tier: "free" },
    ]);
    expect(await keyward.keys.accountTier(acme)).toBe("pro");
    const listed = await keyward.keys.list(acme);
    expect(listed).toHaveLength(3);
  });

  it("refuses past maxKeysPerOwner, counting the owner's live keys", async () => {
    const { keyward } = setup({ maxKeysPerOwner: 2 });
    await keyward.keys.create({
      ownerId: "bob",
      accountTier: "free",
      name: "n",
      scopes: ["profile:read"],
      tier: "free",
    });
    const report = await keyward.imports.importKeys([
      { key: token(), owner: "bob", tier: "free" },
      { key: token(), owner: "bob", tier: "free" },
    ]);
    expect(report.refused.map((entry) => entry.index)).toEqual([1]);
  });

  it("writes key.imported for each new key, by the operator or the system; none on a rerun", async () => {
    const { keyward } = setup();
    const records = [{ key: token(), owner: "carol", tier: "free", name: "old one" }];
    const first = await keyward.imports.importKeys(records, { actor: "system" });
    await keyward.imports.importKeys(records);
    const logged = await keyward.events.list({ owner: "carol" });
    expect(logged.data).toEqual([
      expect.objectContaining({
        type: "key.imported",
        keyId: first.importedIds[0],
        actor: { type: "system" },
        data: expect.objectContaining({ name: "old one", tier: "free", createdBy: "carol" }),
      }),
    ]);
  });

  it("refuses a secret that is another key's, current or previous within its grace", async () => {
    const { keyward, store } = setup();
    const live = await keyward.keys.create({
      ownerId: "dan",
      accountTier: "free",
      name: "n",
      scopes: ["profile:read"],
      tier: "free",
    });
    const rotated = await keyward.keys.create({
      ownerId: "dan",
      accountTier: "free",
      name: "r",
      scopes: ["profile:read"],
      tier: "free",
    });
    await keyward.keys.rotate("dan", rotated.id, { gracePeriodSeconds: 3600 });
    const before = structuredClone(store.keys.snapshot());
    const report = await keyward.imports.importKeys(
      [
        { key: token(), owner: "erin", tier: "free" },
        { key: live.key, owner: "erin", tier: "free" },
        { key: rotated.key, owner: "erin", tier: "free" },
      ],
      { dryRun: true },
    );
    expect(report.refused.map(({ index, issues }) => [index, issues[0]?.msg])).toEqual([
      [1, expect.stringContaining(`already key ${live.id}'s`)],
      [2, expect.stringContaining(`already key ${rotated.id}'s`)],
    ]);
    expect(store.keys.snapshot()).toEqual(before);
  });

  it("puts an imported sk_test_ key of Keyward's format in the test environment", async () => {
    const { keyward, store } = setup();
    const other = setup();
    const { key } = await other.keyward.keys.create({
      ownerId: "x",
      accountTier: "free",
      name: "t",
      scopes: ["profile:read"],
      tier: "free",
      environment: "test",
    });
    await keyward.imports.importKeys([{ key, owner: "fay", tier: "free" }]);
    expect(store.keys.snapshot()[0]).toMatchObject({ environment: "test" });
    expect(
      (await keyward.verify(`Bearer ${key}`, { route: "GET /x", environment: "test" })).ok,
    ).toBe(true);
  });

  it("refuses timestamps create refuses, and createdBy no owner id could be", async () => {
    const { keyward } = setup();
    const base = { key: token(), owner: "gil", tier: "free" };
    const report = await keyward.imports.importKeys([
      { ...base, expiresAt: "9999-12-31T23:30:00-01:00" },
      { ...base, key: token(), lastUsedAt: "9999-01-01T00:00:00Z" },
      { ...base, key: token(), createdAt: "2027-01-01T00:00:00Z" },
      { ...base, key: token(), createdBy: "a\u0000b" },
      { ...base, key: token(), createdBy: "\ud800" },
      { ...base, key: token(), createdBy: "x".repeat(256) },
    ]);
    expect(
      report.refused.map(({ issues }) => `${issues[0]?.loc.join(".")}:${issues[0]?.type}`),
    ).toEqual([
      "expiresAt:less_than_equal",
      "lastUsedAt:datetime_past",
      "createdAt:datetime_past",
      "createdBy:value_error",
      "createdBy:value_error",
      "createdBy:value_error",
    ]);
  });

  it("refuses, or skips and lists, keys verify would never find", async () => {
    const { keyward, store } = setup({ importPrefixes: ["ba_"] });
    const records = [
      { key: token("ba_"), owner: "hal", tier: "free" },
      { key: token("acme_"), owner: "hal", tier: "free" },
      { hash: hashOf(token("acme_")), prefix: "acme_", owner: "hal", tier: "free" },
      { hash: hashOf(token("ba_")), prefix: "ba_", owner: "hal", tier: "free" },
    ];
    const refused = await keyward.imports.importKeys(records, { dryRun: true });
    expect(refused.refused.map(({ index, issues }) => [index, issues[0]?.type])).toEqual([
      [1, "unverifiable"],
      [2, "unverifiable"],
    ]);
    expect(keyward.imports.check(records).refused).toEqual(refused.refused);
    const skipped = await keyward.imports.importKeys(records, { skipUnverifiable: true });
    expect([skipped.imported, skipped.skipped.map((entry) => entry.index)]).toEqual([2, [1, 2]]);
    expect(store.keys.snapshot()).toHaveLength(2);
    // Without prefixes, a foreign token that begins with Keyward's own prefix is never found either.
    const open = setup();
    const foreign = await open.keyward.imports.importKeys([
      { key: token("sk_test_"), owner: "hal", tier: "free" },
      { hash: hashOf(token("sk_live_")), prefix: "sk_live_", owner: "hal", tier: "free" },
    ]);
    expect(foreign.refused.map(({ issues }) => issues[0]?.msg)).toEqual([
      expect.stringMatching(/Keyward's prefix sk_test_ but is not a Keyward key/),
      expect.stringMatching(/begins with Keyward's own sk_live_/),
    ]);
  });
});
