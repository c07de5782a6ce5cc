import { describe, expect, it } from "vitest";
import { manualClock } from "../clock.js";
import { lifecycle } from "../features/lifecycle/index.js";
import { createKeyward, type Keyward } from "../keyward/create-keyward.js";
import { memoryStore } from "../memory/memory-store.js";

const secret = "environments-test-secret-of-at-least-32-bytes";
const scopes = { "profile:read": "Read" };
const tiers = { free: { rateLimit: { limit: 100, window: "1m" } } };
const environments = { live: "sk_live_", test: "sk_test_" };

const withEnvironments = (extra: Partial<Parameters<typeof createKeyward>[0]> = {}) => {
  const store = memoryStore();
  const keyward = createKeyward({
    store,
    scopes,
    tiers,
    jwt: { secret },
    keys: { environments },
    features: [lifecycle()],
    ...extra,
  });
  return { keyward, store };
};

const create = (keyward: Keyward, extra: { environment?: string } = {}) =>
  keyward.keys.create({
    ownerId: "alice",
    accountTier: "free",
    name: "k",
    scopes: ["profile:read"],
    tier: "free",
    ...extra,
  });

describe("environments: keys", () => {
  it("creates keys in the first environment by default, or the one named, with its prefix", async () => {
    // A clock of its own: two keys made in one millisecond would list in no set order.
    const clock = manualClock(Date.parse("2026-06-01T00:00:00Z"));
    const { keyward, store } = withEnvironments({ clock });
    const live = await create(keyward);
    clock.advance(1);
    const test = await create(keyward, { environment: "test" });
    expect(live.key).toMatch(/^sk_live_[0-9A-Za-z]{36}$/);
    // The default environment's records are the contract's: no `environment`, as no `owner`.
    expect(live).toMatchObject({ hint: expect.stringMatching(/^sk_live_…/) });
    expect("environment" in live).toBe(false);
    expect(test.key).toMatch(/^sk_test_[0-9A-Za-z]{36}$/);
    expect(test).toMatchObject({ environment: "test", hint: expect.stringMatching(/^sk_test_…/) });
    // Persisted, not derived: the store holds the environment.
    expect(
      store.keys
        .snapshot()
        .map((key) => key.environment)
        .sort(),
    ).toEqual(["live", "test"]);
    expect((await keyward.keys.list("alice")).map((record) => record.environment)).toEqual([
      "test",
      undefined,
    ]);
  });

  it("keeps a rotated key in its environment", async () => {
    const { keyward } = withEnvironments();
    const test = await create(keyward, { environment: "test" });
    const rotated = await keyward.keys.rotate("alice", test.id);
    expect(rotated.key).toMatch(/^sk_test_/);
    expect(rotated.environment).toBe("test");
    const result = await keyward.verify(`Bearer ${rotated.key}`, { environment: "test" });
    expect(result.ok).toBe(true);
  });

  it("puts the environment on the principal, and verifies every environment's keys by default", async () => {
    const { keyward } = withEnvironments();
    const test = await create(keyward, { environment: "test" });
    const result = await keyward.verify(`Bearer ${test.key}`, { route: "GET /x" });
    expect(result.ok && result.principal.kind === "key" && result.principal.environment).toBe(
      "test",
    );
  });

  it("refuses a key of another environment with 401 invalid_api_key, before any lookup", async () => {
    const { keyward, store } = withEnvironments();
    const live = await create(keyward);
    const test = await create(keyward, { environment: "test" });
    let lookups = 0;
    const findByHash = store.keys.findByHash.bind(store.keys);
    store.keys.findByHash = (hash) => {
      lookups++;
      return findByHash(hash);
    };
    const refused = await keyward.verify(`Bearer ${test.key}`, { environment: "live" });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.code).toBe("invalid_api_key");
    expect(refused.error.status).toBe(401);
    expect(refused.error.detail).toBe(
      "API key is for the test environment; this endpoint takes live keys",
    );
    expect(refused.headers["www-authenticate"] ?? refused.headers["WWW-Authenticate"]).toMatch(
      /invalid_token/,
    );
    expect(lookups).toBe(0);
    // No key is refused without being well-formed first: a malformed one is just invalid.
    const malformed = await keyward.verify("Bearer sk_test_nope", { environment: "live" });
    expect(!malformed.ok && malformed.error.detail).toBe("Invalid API key");
    expect((await keyward.verify(`Bearer ${live.key}`, { environment: "live" })).ok).toBe(true);
    expect((await keyward.verify(`Bearer ${test.key}`, { environment: "test" })).ok).toBe(true);
  });

  it("answers an unknown environment in verify with 500 (a host bug), and assertEnvironment names it", async () => {
    const { keyward } = withEnvironments({ logger: false });
    const live = await create(keyward);
    const result = await keyward.verify(`Bearer ${live.key}`, { environment: "staging" });
    expect(!result.ok && result.error.status).toBe(500);
    expect(() => keyward.assertEnvironment("staging")).toThrow(
      /"staging" is not a configured environment; configured: live, test/,
    );
    expect(() => keyward.assertEnvironment("test")).not.toThrow();
  });

  it("refuses an unknown environment on create with 422, changing nothing", async () => {
    const { keyward, store } = withEnvironments();
    await expect(create(keyward, { environment: "staging" })).rejects.toMatchObject({
      code: "validation_failed",
      detail: [
        {
          loc: ["body", "environment"],
          msg: "Input should be 'live' or 'test'",
          type: "literal_error",
        },
      ],
    });
    await expect(create(keyward, { environment: 7 as unknown as string })).rejects.toMatchObject({
      detail: [{ loc: ["body", "environment"], type: "string_type" }],
    });
    expect(store.keys.snapshot()).toEqual([]);
  });
});

describe("environments: without them (a v0.1 configuration)", () => {
  it("keeps records and stored keys exactly as they were, and names the one environment live", async () => {
    const store = memoryStore();
    const keyward = createKeyward({ store, scopes, tiers, jwt: { secret } });
    const created = await create(keyward);
    expect(Object.keys(created).sort()).toEqual(
      [
        "createdAt",
        "expiresAt",
        "hint",
        "id",
        "key",
        "lastUsedAt",
        "name",
        "revokedAt",
        "scopes",
        "status",
        "tier",
      ].sort(),
    );
    expect("environment" in store.keys.snapshot()[0]!).toBe(false);
    const result = await keyward.verify(`Bearer ${created.key}`, { environment: "live" });
    expect(result.ok && result.principal.kind === "key" && result.principal.environment).toBe(
      "live",
    );
    await expect(create(keyward, { environment: "test" })).rejects.toThrow(
      /no `environments` are configured/,
    );
  });

  it("reads a key stored before environments were configured as the environment of its prefix", async () => {
    const store = memoryStore();
    const before = createKeyward({ store, scopes, tiers, jwt: { secret } });
    const old = await create(before);
    // The same store, now with environments listed test first: the old key is still live.
    const after = createKeyward({
      store,
      scopes,
      tiers,
      jwt: { secret },
      keys: { environments: { test: "sk_test_", live: "sk_live_" } },
    });
    expect((await after.keys.list("alice"))[0]!.environment).toBe("live");
    const result = await after.verify(`Bearer ${old.key}`, { environment: "live" });
    expect(result.ok && result.principal.kind === "key" && result.principal.environment).toBe(
      "live",
    );
  });
});

describe("environments: configuration", () => {
  const build =
    ({ environments, prefix }: { environments?: unknown; prefix?: string }) =>
    () =>
      createKeyward({
        store: memoryStore(),
        scopes,
        tiers,
        jwt: false,
        keys: {
          ...(prefix === undefined ? {} : { prefix }),
          ...(environments === undefined
            ? {}
            : { environments: environments as Record<string, string> }),
        },
      });

  it.each([
    [
      { environments: { live: "sk_", test: "sk_test_" } },
      /`keys.environments`: .*"sk_" starts "sk_test_"/,
    ],
    [{ environments: { live: "sk_live_", test: "sk_live_" } }, /listed twice/],
    [{ environments: { live: "sk_live_" }, prefix: "sk_live_" }, /not both/],
    [{ environments: {} }, /at least one environment/],
    [{ environments: ["sk_live_"] }, /must be an object of name → key prefix/],
    [{ environments: { Live: "sk_live_" } }, /environment name "Live"/],
    [{ environments: { live: 7 } }, /`keys.environments.live` must be a key prefix/],
    [{ environments: { live: "SK-LIVE" } }, /`keys.environments`: Invalid key prefix "SK-LIVE"/],
    [{ prefix: "Bad Prefix" }, /`keys.prefix`: Invalid key prefix/],
  ])("refuses %j at start", (extra, message) => {
    expect(build(extra)).toThrow(message);
  });

  it("refuses environments given to lifecycle(), naming where they go now", () => {
    expect(() => lifecycle({ environments } as never)).toThrow(/`keys.environments`/);
  });
});

describe("environments: a key moved to another prefix", () => {
  it("is another secret: it finds nothing", async () => {
    const { keyward } = withEnvironments();
    const live = await create(keyward);
    const moved = `sk_test_${live.key.slice("sk_live_".length)}`;
    const result = await keyward.verify(`Bearer ${moved}`, { environment: "test" });
    expect(!result.ok && result.error.detail).toBe("Invalid API key");
  });
});

describe("environments: a key whose record and prefix disagree", () => {
  // What a second configuration sharing the store once made: an instance without `environments`
  // rotated a test key, so the record says test while the new secret starts sk_live_.
  const rotatedElsewhere = async () => {
    const { keyward, store } = withEnvironments();
    const test = await create(keyward, { environment: "test" });
    const elsewhere = createKeyward({ store, scopes, tiers, jwt: false });
    const rotated = await elsewhere.keys.rotate("alice", test.id);
    expect(rotated.key).toMatch(/^sk_live_/);
    expect(store.keys.snapshot()[0]!.environment).toBe("test");
    return { keyward, secret: rotated.key };
  };

  it("is refused by a live route: the recorded environment counts, not the prefix alone", async () => {
    const { keyward, secret } = await rotatedElsewhere();
    const result = await keyward.verify(`Bearer ${secret}`, {
      environment: "live",
      route: "GET /x",
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toMatchObject({
      code: "invalid_api_key",
      status: 401,
      detail: "API key is for the test environment; this endpoint takes live keys",
    });
  });

  it("is refused by a test route too (its prefix is live), and names its environment to others", async () => {
    const { keyward, secret } = await rotatedElsewhere();
    const asTest = await keyward.verify(`Bearer ${secret}`, {
      environment: "test",
      route: "GET /x",
    });
    expect(!asTest.ok && asTest.error.detail).toBe(
      "API key is for the live environment; this endpoint takes test keys",
    );
    const anywhere = await keyward.verify(`Bearer ${secret}`, { route: "GET /x" });
    expect(anywhere.ok && anywhere.principal.kind === "key" && anywhere.principal.environment).toBe(
      "test",
    );
  });

  it("costs the key's limit nothing when refused", async () => {
    const { keyward, secret } = await rotatedElsewhere();
    for (let i = 0; i < 3; i++)
      await keyward.verify(`Bearer ${secret}`, { environment: "live", route: "GET /x" });
    const admitted = await keyward.verify(`Bearer ${secret}`, { route: "GET /x" });
    expect(admitted.ok && admitted.rateLimit?.remaining).toBe(99);
  });
});
