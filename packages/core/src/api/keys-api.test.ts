import { beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "../clock.js";
import { KeywardError } from "../errors/keyward-error.js";
import { lifecycle } from "../features/lifecycle/index.js";
import { createSecretHasher } from "../keys/hash.js";
import { createKeyward, type Keyward } from "../keyward/create-keyward.js";
import { memoryStore } from "../memory/memory-store.js";
import type { KeywardStore } from "../storage/index.js";

const start = Date.parse("2026-05-01T00:00:00.000Z");
const scopes = { "profile:read": "Read profiles", "profile:write": "Edit profiles" };
const tiers = {
  free: { rateLimit: { limit: 60, window: "1m" } },
  pro: { rateLimit: { limit: 600, window: "1m" } },
  enterprise: { rateLimit: { limit: 6000, window: "1m" } },
};

let clock = manualClock(start);
let store = memoryStore();
let keyward: Keyward;

beforeEach(() => {
  clock = manualClock(start);
  store = memoryStore();
  keyward = createKeyward({ store, scopes, tiers, clock });
});

const create = (overrides: Partial<Parameters<Keyward["keys"]["create"]>[0]> = {}) =>
  keyward.keys.create({
    ownerId: "alice",
    accountTier: "pro",
    name: "deploy bot",
    scopes: ["profile:read"],
    tier: "pro",
    ...overrides,
  });

/** Resolves to the KeywardError a call rejects with. */
async function failure(promise: Promise<unknown>): Promise<KeywardError> {
  const error = await promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(KeywardError);
  return error as KeywardError;
}

describe("maxKeysPerOwner", () => {
  /** The memory store, and the same without `countLiveByOwner`: counted by listing, as before it. */
  const stores = {
    "counted by the store": () => memoryStore(),
    "counted by listing": (): KeywardStore => {
      const memory = memoryStore();
      return { ...memory, keys: { ...memory.keys, countLiveByOwner: undefined } };
    },
  };

  for (const [how, open] of Object.entries(stores)) {
    it(`refuses a create past the owner's live keys, ${how}`, async () => {
      const limited = createKeyward({
        store: open(),
        scopes,
        tiers,
        clock,
        features: [lifecycle({ maxKeysPerOwner: 3 })],
        logger: false,
      });
      const make = (expiresAt?: string) =>
        limited.keys.create({
          ownerId: "alice",
          accountTier: "pro",
          name: "k",
          scopes: ["profile:read"],
          tier: "pro",
          ...(expiresAt ? { expiresAt } : {}),
        });
      const first = await make();
      await make("2026-05-01T00:00:01.000Z");
      const third = await make();
      // Disabled, it still holds its place: three live keys.
      await limited.keys.update("alice", third.id, { enabled: false });
      const refused = await failure(make());
      expect(refused).toMatchObject({ status: 403, code: "too_many_keys" });
      // Refused, nothing written; the other owners are not counted against alice.
      expect(await limited.keys.list("alice")).toHaveLength(3);
      await limited.keys.create({
        ownerId: "bob",
        accountTier: "pro",
        name: "k",
        scopes: ["profile:read"],
        tier: "pro",
      });
      // An expiry that has passed, and a revocation, each free a place.
      clock.advance(1_000);
      await make();
      await failure(make());
      await limited.keys.revoke("alice", first.id);
      await make();
      await expect(make()).rejects.toMatchObject({ code: "too_many_keys" });
      await limited.close();
    });
  }
});

describe("keys.create", () => {
  it("returns the record and the full secret once; stores only the hash", async () => {
    const created = await create({ expiresAt: "2026-08-01T00:00:00Z" });
    expect(created).toEqual({
      id: expect.stringMatching(/^key_[0-9A-Za-z]{24}$/),
      name: "deploy bot",
      scopes: ["profile:read"],
      tier: "pro",
      status: "active",
      hint: `sk_live_…${created.key.slice(-4)}`,
      createdAt: "2026-05-01T00:00:00.000Z",
      expiresAt: "2026-08-01T00:00:00.000Z",
      lastUsedAt: null,
      revokedAt: null,
      key: expect.stringMatching(/^sk_live_[0-9A-Za-z]{36}$/),
    });
    const [stored] = store.snapshot().keys;
    expect(stored?.secretHash).toBe(createSecretHasher().hash(created.key));
    expect(JSON.stringify(store.snapshot())).not.toContain(created.key);
  });

  it("accepts a Date for expiresAt", async () => {
    const created = await create({ expiresAt: new Date("2026-06-01T00:00:00Z") });
    expect(created.expiresAt).toBe("2026-06-01T00:00:00.000Z");
  });

  it("allows a tier at or below the account's, and refuses one above it with 403", async () => {
    await expect(create({ accountTier: "pro", tier: "free" })).resolves.toBeDefined();
    const error = await failure(create({ accountTier: "pro", tier: "enterprise" }));
    expect(error).toMatchObject({ status: 403, code: "tier_not_allowed" });
    expect(error.detail).toBe("Tier 'enterprise' is above the account's tier 'pro'");
    expect(store.snapshot().keys).toHaveLength(1);
  });

  it("treats an unknown account tier as the lowest tier", async () => {
    const error = await failure(create({ accountTier: "platinum", tier: "pro" }));
    expect(error.code).toBe("tier_not_allowed");
    await expect(create({ accountTier: "platinum", tier: "free" })).resolves.toBeDefined();
  });

  it("answers 422 with every problem and stores nothing", async () => {
    const error = await failure(
      create({
        name: "",
        scopes: ["nope", "profile:read", "profile:read"],
        tier: "gold",
        expiresAt: "2020-01-01T00:00:00Z",
      }),
    );
    expect(error.status).toBe(422);
    expect(error.detail).toEqual([
      {
        loc: ["body", "name"],
        msg: "String should have at least 1 character",
        type: "string_too_short",
      },
      {
        loc: ["body", "scopes", 0],
        msg: "Input should be 'profile:read' or 'profile:write'",
        type: "literal_error",
      },
      {
        loc: ["body", "scopes", 2],
        msg: "Value error, duplicate scope 'profile:read'",
        type: "value_error",
      },
      {
        loc: ["body", "tier"],
        msg: "Input should be 'free', 'pro' or 'enterprise'",
        type: "literal_error",
      },
      { loc: ["body", "expiresAt"], msg: "Input should be in the future", type: "datetime_future" },
    ]);
    expect(store.snapshot().keys).toHaveLength(0);
  });

  it("validates before checking the tier", async () => {
    const error = await failure(create({ name: "", tier: "enterprise" }));
    expect(error.status).toBe(422);
  });

  it("rejects a missing owner as a programming error", async () => {
    await expect(create({ ownerId: "" })).rejects.toThrow(TypeError);
  });

  it("turns a storage failure into a 500 without internals, keeping the cause", async () => {
    const broken = brokenStore("create");
    const error = await failure(
      createKeyward({ store: broken, scopes, tiers }).keys.create({
        ownerId: "alice",
        accountTier: "free",
        name: "x",
        scopes: ["profile:read"],
        tier: "free",
      }),
    );
    expect(error).toMatchObject({ status: 500, code: "internal", detail: "Internal server error" });
    expect((error.cause as Error).message).toBe("database is down");
  });
});

describe("keys.list", () => {
  it("lists the owner's keys newest first with computed statuses, never secrets", async () => {
    const first = await create({ name: "first", expiresAt: "2026-05-02T00:00:00Z" });
    clock.advance(1_000);
    const second = await create({ name: "second" });
    clock.advance(1_000);
    const third = await create({ name: "third" });
    await keyward.keys.revoke("alice", third.id);
    await create({ ownerId: "bob" });
    clock.set(Date.parse("2026-05-03T00:00:00Z"));

    const listed = await keyward.keys.list("alice");
    expect(listed.map((key) => [key.name, key.status])).toEqual([
      ["third", "revoked"],
      ["second", "active"],
      ["first", "expired"],
    ]);
    const text = JSON.stringify(listed);
    for (const secret of [first.key, second.key, third.key]) expect(text).not.toContain(secret);
    expect(listed.every((key) => !("key" in key))).toBe(true);
  });

  it("is empty for a user with no keys", async () => {
    expect(await keyward.keys.list("nobody")).toEqual([]);
  });

  it("shows lastUsedAt from usage", async () => {
    const created = await create();
    await store.usage.record([
      {
        keyId: created.id,
        method: "GET",
        route: "/x",
        day: "2026-05-01",
        count: 1,
        lastUsedAt: start + 5_000,
      },
    ]);
    expect((await keyward.keys.list("alice"))[0]?.lastUsedAt).toBe("2026-05-01T00:00:05.000Z");
  });
});

describe("keys.get", () => {
  it("finds a key by id alone, with its owner, a user's or an organization's", async () => {
    const mine = await create();
    const theirs = await create({
      ownerId: undefined,
      owner: { type: "organization", id: "acme" },
      createdBy: "alice",
    });
    const { key: _secret, ...record } = mine;
    expect(await keyward.keys.get(mine.id)).toEqual({
      ...record,
      owner: { type: "user", id: "alice" },
    });
    expect(await keyward.keys.get(theirs.id)).toMatchObject({
      id: theirs.id,
      owner: { type: "organization", id: "acme" },
      createdBy: "alice",
    });
    expect(JSON.stringify(await keyward.keys.get(mine.id))).not.toContain(mine.key);
  });

  it("answers 404 for an unknown id or one of a shape never issued", async () => {
    for (const id of ["key_000000000000000000000000", "not a key id\u0000"]) {
      expect((await failure(keyward.keys.get(id))).status).toBe(404);
    }
  });
});

describe("keys.accountTier", () => {
  it("answers the tier recorded for an owner, null before its first key, apart per owner type", async () => {
    expect(await keyward.keys.accountTier("alice")).toBeNull();
    await create();
    expect(await keyward.keys.accountTier("alice")).toBe("pro");
    await keyward.keys.setAccountTier("alice", "free");
    expect(await keyward.keys.accountTier("alice")).toBe("free");
    expect(await keyward.keys.accountTier({ type: "organization", id: "alice" })).toBeNull();
    await expect(keyward.keys.accountTier("")).rejects.toThrow(TypeError);
  });
});

describe("keys.rotate", () => {
  it("replaces the secret, keeping id, name, scopes, tier and expiry", async () => {
    const created = await create({
      scopes: ["profile:read", "profile:write"],
      expiresAt: "2026-09-01T00:00:00Z",
    });
    clock.advance(60_000);
    const rotated = await keyward.keys.rotate("alice", created.id);
    expect(rotated.key).not.toBe(created.key);
    const { key: _new, hint, ...rest } = rotated;
    const { key: _old, hint: _oldHint, ...before } = created;
    expect(rest).toEqual(before);
    expect(hint).toBe(`sk_live_…${rotated.key.slice(-4)}`);
    const hasher = createSecretHasher();
    expect(await store.keys.findByHash(hasher.hash(created.key))).toBeNull();
    expect((await store.keys.findByHash(hasher.hash(rotated.key)))?.id).toBe(created.id);
  });

  it("keeps usage across rotation", async () => {
    const created = await create();
    await store.usage.record([
      {
        keyId: created.id,
        method: "GET",
        route: "/x",
        day: "2026-05-01",
        count: 3,
        lastUsedAt: start,
      },
    ]);
    await keyward.keys.rotate("alice", created.id);
    expect((await keyward.keys.usage("alice", created.id)).totalRequests).toBe(3);
  });

  it("answers 404 for an unknown id, 403 for another user's key, 410 for revoked or expired", async () => {
    const created = await create({ expiresAt: "2026-05-01T01:00:00Z" });
    expect(await failure(keyward.keys.rotate("alice", "key_missing"))).toMatchObject({
      status: 404,
      code: "key_not_found",
      detail: "API key not found",
    });
    expect(await failure(keyward.keys.rotate("bob", created.id))).toMatchObject({
      status: 403,
      code: "not_owner",
    });

    clock.advance(60 * 60 * 1000);
    expect(await failure(keyward.keys.rotate("alice", created.id))).toMatchObject({
      status: 410,
      detail: "API key has expired",
    });

    const revoked = await create();
    await keyward.keys.revoke("alice", revoked.id);
    expect(await failure(keyward.keys.rotate("alice", revoked.id))).toMatchObject({
      status: 410,
      detail: "API key has been revoked",
    });
    const before = store.snapshot();
    await failure(keyward.keys.rotate("alice", revoked.id));
    expect(store.snapshot()).toEqual(before);
  });

  it("issues exactly one working secret out of 100 concurrent rotations; the others get 409", async () => {
    const created = await create();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 100 }, () => keyward.keys.rotate("alice", created.id)),
    );
    const winners = outcomes.filter((outcome) => outcome.status === "fulfilled");
    const losers = outcomes.filter((outcome) => outcome.status === "rejected");
    expect(winners).toHaveLength(1);
    for (const loser of losers)
      expect(loser.reason).toMatchObject({ status: 409, code: "rotation_conflict" });
    const hasher = createSecretHasher();
    const winner = (winners[0] as PromiseFulfilledResult<{ key: string }>).value.key;
    expect((await store.keys.findByHash(hasher.hash(winner)))?.id).toBe(created.id);
    expect(await store.keys.findByHash(hasher.hash(created.key))).toBeNull();
  });
});

describe("keys.revoke", () => {
  it("revokes permanently and reports when", async () => {
    const created = await create();
    clock.advance(5_000);
    expect(await keyward.keys.revoke("alice", created.id)).toEqual({
      id: created.id,
      status: "revoked",
      revokedAt: "2026-05-01T00:00:05.000Z",
    });
    expect(await failure(keyward.keys.revoke("alice", created.id))).toMatchObject({ status: 410 });
    expect((await keyward.keys.list("alice"))[0]?.status).toBe("revoked");
  });

  it("revokes an expired key", async () => {
    const created = await create({ expiresAt: "2026-05-01T00:00:01Z" });
    clock.advance(10_000);
    await expect(keyward.keys.revoke("alice", created.id)).resolves.toMatchObject({
      status: "revoked",
    });
  });

  it("answers 404 for an unknown id and 403 for another user's key, changing nothing", async () => {
    const created = await create();
    expect(await failure(keyward.keys.revoke("alice", "key_missing"))).toMatchObject({
      status: 404,
    });
    expect(await failure(keyward.keys.revoke("bob", created.id))).toMatchObject({ status: 403 });
    expect((await keyward.keys.list("alice"))[0]?.status).toBe("active");
  });

  it("lets one of many concurrent revocations succeed; the rest get 410", async () => {
    const created = await create();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => keyward.keys.revoke("alice", created.id)),
    );
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
  });
});

describe("keys.update", () => {
  it("refuses fields it does not have (422 naming each) before changing anything; limits stay the operator's", async () => {
    const key = await create();
    const error = await failure(
      keyward.keys.update("alice", key.id, {
        name: "renamed",
        tier: "free",
        expiresAt: null,
      } as Parameters<Keyward["keys"]["update"]>[2]),
    );
    expect(error.code).toBe("validation_failed");
    expect(error.detail).toEqual([
      { loc: ["body", "tier"], msg: "Extra inputs are not permitted", type: "extra_forbidden" },
      {
        loc: ["body", "expiresAt"],
        msg: "Extra inputs are not permitted",
        type: "extra_forbidden",
      },
    ]);
    expect((await keyward.keys.list("alice"))[0]).toMatchObject({
      name: "deploy bot",
      tier: "pro",
    });
    const limited = await keyward.keys.update("alice", key.id, {
      name: "metered",
      limits: { rateLimit: { limit: 5, window: "1m" } },
    });
    expect(limited.name).toBe("metered");
    expect(store.keys.snapshot()[0]?.limits).toEqual({ rateLimit: { limit: 5, window: "1m" } });
  });
});

describe("keys.usage", () => {
  it("reports totals, last use, endpoints and days", async () => {
    const created = await create();
    await store.usage.record([
      {
        keyId: created.id,
        method: "GET",
        route: "/p/:slug",
        day: "2026-05-01",
        count: 2,
        lastUsedAt: start + 1,
      },
      {
        keyId: created.id,
        method: "PUT",
        route: "/p/:slug",
        day: "2026-05-02",
        count: 1,
        lastUsedAt: start + 86_400_000,
      },
    ]);
    expect(await keyward.keys.usage("alice", created.id)).toEqual({
      keyId: created.id,
      totalRequests: 3,
      lastUsedAt: "2026-05-02T00:00:00.000Z",
      endpoints: [
        { method: "GET", route: "/p/:slug", count: 2 },
        { method: "PUT", route: "/p/:slug", count: 1 },
      ],
      daily: [
        { date: "2026-05-01", count: 2 },
        { date: "2026-05-02", count: 1 },
      ],
    });
  });

  it("answers 404 for an unknown id and 403 for another user's key", async () => {
    const created = await create();
    expect(await failure(keyward.keys.usage("alice", "key_missing"))).toMatchObject({
      status: 404,
    });
    expect(await failure(keyward.keys.usage("bob", created.id))).toMatchObject({ status: 403 });
  });

  it("reports a revoked key's usage too", async () => {
    const created = await create();
    await keyward.keys.revoke("alice", created.id);
    expect((await keyward.keys.usage("alice", created.id)).totalRequests).toBe(0);
  });
});

describe("createKeyward", () => {
  it("refuses bad configuration at start", () => {
    expect(() => createKeyward({ store, scopes: {}, tiers })).toThrow(/at least one scope/);
    expect(() => createKeyward({ store, scopes, tiers: {} })).toThrow(/at least one tier/);
    expect(() => createKeyward({ store, scopes: { "bad scope": "x" }, tiers })).toThrow(
      /invalid scope name/,
    );
    expect(() =>
      createKeyward({ store, scopes, tiers: { free: { rateLimit: { limit: 0, window: "1m" } } } }),
    ).toThrow(/free/);
    expect(() => createKeyward({ store, scopes, tiers, keys: { prefix: "Bad Prefix" } })).toThrow(
      /prefix/,
    );
    expect(() => createKeyward({ store: {} as KeywardStore, scopes, tiers })).toThrow(/store/);
  });

  it("uses the configured prefix and pepper", async () => {
    const peppered = createKeyward({
      store,
      scopes,
      tiers,
      keys: { prefix: "sk_test_", pepper: "p".repeat(32) },
    });
    const created = await peppered.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "t",
      scopes: ["profile:read"],
      tier: "free",
    });
    expect(created.key.startsWith("sk_test_")).toBe(true);
    expect(created.hint.startsWith("sk_test_…")).toBe(true);
    const [stored] = store.snapshot().keys;
    expect(stored?.secretHash).toBe(
      createSecretHasher({ pepper: "p".repeat(32) }).hash(created.key),
    );
    expect(stored?.secretHash).not.toBe(createSecretHasher().hash(created.key));
  });

  it("closes once, however often close() is called", async () => {
    let closes = 0;
    const counted = { ...memoryStore(), close: async () => void closes++ };
    const instance = createKeyward({ store: counted, scopes, tiers });
    await Promise.all([instance.close(), instance.close()]);
    await instance.close();
    expect(closes).toBe(1);
  });
});

describe("input policy", () => {
  /** The memory store, with every call to any of its parts written down. */
  const recordingStore = () => {
    const real = memoryStore();
    const calls: string[] = [];
    const recorded = <T extends object>(part: T, name: string): T =>
      new Proxy(part, {
        get(target, property) {
          const value = Reflect.get(target, property) as unknown;
          if (typeof value !== "function") return value;
          return (...args: unknown[]) => {
            calls.push(`${name}.${String(property)}`);
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    const storage: KeywardStore = {
      keys: recorded(real.keys, "keys"),
      usage: recorded(real.usage, "usage"),
      rateLimits: recorded(real.rateLimits, "rateLimits"),
    };
    return { storage, calls, real };
  };

  it("answers ids that were never issued with 404, asking no store", async () => {
    const { storage, calls } = recordingStore();
    const instance = createKeyward({ store: storage, scopes, tiers, clock });
    const ids = [
      "",
      "key_\u0000",
      `key_${"a".repeat(23)}\u0000`,
      `key_${"a".repeat(5_000)}`,
      `key_${"a".repeat(23)}`,
      `key_${"a".repeat(25)}`,
      `key_${"a".repeat(23)}-`,
      `KEY_${"a".repeat(24)}`,
      "../../etc/passwd",
      42 as unknown as string,
    ];
    for (const id of ids) {
      for (const call of [instance.keys.rotate, instance.keys.revoke, instance.keys.usage]) {
        expect(await failure(call("alice", id))).toMatchObject({
          status: 404,
          code: "key_not_found",
          detail: "API key not found",
        });
      }
    }
    expect(calls).toEqual([]);
  });

  it.each([
    ["an empty string", ""],
    ["NUL", "user\u0000"],
    ["a control character", "user\n1"],
    ["a bidi override", "user\u202e1"],
    ["a lone surrogate", "user\ud800"],
    ["256 characters", "u".repeat(256)],
    ["5,000 characters", "u".repeat(5_000)],
    ["a non-string", 42 as unknown as string],
  ])("throws a TypeError for an ownerId with %s, before any store call", async (_, ownerId) => {
    const { storage, calls } = recordingStore();
    const instance = createKeyward({ store: storage, scopes, tiers, clock });
    const key = "key_aaaaaaaaaaaaaaaaaaaaaaaa";
    const attempts = [
      instance.keys.create({
        ownerId,
        accountTier: "pro",
        name: "n",
        scopes: ["profile:read"],
        tier: "free",
      }),
      instance.keys.list(ownerId),
      instance.keys.rotate(ownerId, key),
      instance.keys.revoke(ownerId, key),
      instance.keys.usage(ownerId, key),
    ];
    for (const attempt of attempts) {
      await expect(attempt).rejects.toThrow(TypeError);
      await expect(attempt).rejects.toThrow(/^Keyward: ownerId /);
    }
    expect(calls).toEqual([]);
  });

  it("accepts an ownerId of 255 characters, counted as code points", async () => {
    await expect(create({ ownerId: "u".repeat(255) })).resolves.toBeDefined();
    await expect(create({ ownerId: "🔑".repeat(255) })).resolves.toBeDefined();
  });

  it("stores the name trimmed and refuses a bad one with 422, storing nothing", async () => {
    expect((await create({ name: "  deploy bot\t" })).name).toBe("deploy bot");
    expect(store.snapshot().keys[0]?.name).toBe("deploy bot");
    const error = await failure(create({ name: "deploy\u0000bot" }));
    expect(error).toMatchObject({ status: 422, code: "validation_failed" });
    expect(error.detail).toEqual([
      {
        loc: ["body", "name"],
        msg: "Value error, name must not contain a control character (found U+0000)",
        type: "value_error",
      },
    ]);
    expect(store.snapshot().keys).toHaveLength(1);
  });

  it("answers an invalid Date or one past year 9999 with 422, not a thrown RangeError", async () => {
    for (const expiresAt of [new Date(Number.NaN), new Date(Date.UTC(10_000, 0, 1))]) {
      const error = await failure(create({ expiresAt }));
      expect(error).toMatchObject({ status: 422 });
      expect(error.detail).toEqual([
        { loc: ["body", "expiresAt"], msg: expect.any(String), type: "datetime_parsing" },
      ]);
    }
  });
});

function brokenStore(failing: "create"): KeywardStore {
  const healthy = memoryStore();
  return {
    ...healthy,
    keys: {
      ...healthy.keys,
      [failing]: async () => {
        throw new Error("database is down");
      },
    },
  };
}
