/** `imports()` end to end on the memory store: importing, refusing, verifying imported tokens, rehashing. */
import { createHash, createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { manualClock } from "../../clock.js";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import type { KeyStore } from "../../storage/key-store.js";
import { imports } from "./index.js";

const scopes = { "profile:read": "Read", "profile:write": "Write" };
const tiers = {
  free: { rateLimit: { limit: 100, window: "1m" } },
  pro: { rateLimit: { limit: 1000, window: "1m" } },
};
const pepper = "keyward-pepper-0123456789abcdef-0123";
const legacyPepper = "the-old-system-pepper";

/** A token as better-auth makes one: its prefix and 64 letters. */
const legacyToken = (prefix = "ba_") =>
  prefix +
  Array.from(
    randomBytes(64),
    (byte) => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[byte % 52],
  ).join("");
const sha256 = (token: string, encoding: "hex" | "base64url" | "base64") =>
  createHash("sha256").update(token).digest(encoding);

function setup(
  options: {
    keywardPepper?: boolean;
    noPeek?: boolean;
    config?: Parameters<typeof imports>[0];
  } = {},
) {
  const store = memoryStore();
  // Counts every lookup the key store is asked for, cached (peek) or not.
  const lookups = { peek: 0, find: 0 };
  const keys: KeyStore = {
    ...store.keys,
    // Without peek, as a database without a cache: every lookup is a query, and is limited.
    peek: options.noPeek
      ? undefined
      : (hash) => {
          lookups.peek++;
          return store.keys.peek(hash);
        },
    findByHash: (hash) => {
      lookups.find++;
      return store.keys.findByHash(hash);
    },
  };
  const clock = manualClock(Date.parse("2026-06-01T00:00:00Z"));
  const keyward = createKeyward({
    store: { ...store, keys },
    scopes,
    tiers,
    jwt: { secret: "a-test-secret-of-at-least-32-characters!" },
    clock,
    logger: false,
    ...(options.keywardPepper === false ? {} : { keys: { pepper } }),
    features: [imports(options.config ?? { peppers: { old: legacyPepper } })],
  });
  const verify = (token: string, required: string[] = []) =>
    keyward.verify(`Bearer ${token}`, { route: "GET /x", scopes: required });
  return { keyward, store, lookups, clock, verify };
}

describe("imports(): importing keys", () => {
  it("imports hashed keys in every encoding and plaintext keys, and each verifies with its scopes", async () => {
    const { keyward, verify } = setup();
    const tokens = [legacyToken(), legacyToken(), legacyToken(), legacyToken()];
    const report = await keyward.imports.importKeys([
      {
        hash: {
          value: sha256(tokens[0]!, "base64url"),
          algorithm: "sha256",
          encoding: "base64url",
        },
        prefix: "ba_",
        owner: "alice",
        scopes: ["profile:read"],
        tier: "free",
      },
      {
        hash: { value: sha256(tokens[1]!, "hex"), algorithm: "sha256", encoding: "hex" },
        owner: { type: "organization", id: "acme" },
        createdBy: "alice",
        scopes: ["profile:read", "profile:write"],
        tier: "pro",
      },
      {
        hash: { value: sha256(tokens[2]!, "base64"), algorithm: "sha256", encoding: "base64" },
        owner: "bob",
        tier: "free",
        name: "old key",
        metadata: { plan: "legacy" },
      },
      { key: tokens[3], prefix: "ba_", owner: "carol", scopes: ["profile:write"], tier: "free" },
    ]);
    expect(report).toMatchObject({
      dryRun: false,
      received: 4,
      imported: 4,
      unchanged: 0,
      refused: [],
    });

    const first = await verify(tokens[0]!, ["profile:read"]);
    expect(first.ok && first.principal).toMatchObject({
      kind: "key",
      owner: { type: "user", id: "alice" },
      scopes: ["profile:read"],
      tier: "free",
    });
    expect((await verify(tokens[0]!, ["profile:write"])).ok).toBe(false);
    const organization = await verify(tokens[1]!, ["profile:write"]);
    expect(organization.ok && organization.principal).toMatchObject({
      owner: { type: "organization", id: "acme" },
      createdBy: "alice",
      tier: "pro",
    });
    const third = await verify(tokens[2]!);
    expect(third.ok && third.principal).toMatchObject({
      name: "old key",
      metadata: { plan: "legacy" },
      scopes: [],
    });
    expect((await verify(tokens[3]!, ["profile:write"])).ok).toBe(true);

    const listed = await keyward.keys.list("alice");
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ hint: "ba_…", status: "active", scopes: ["profile:read"] });
    expect((await keyward.keys.list("carol"))[0]!.hint).toBe(`ba_…${tokens[3]!.slice(-4)}`);
  });

  it("refuses a wrong token, one changed by a character, and a forged one", async () => {
    const { keyward, verify } = setup();
    const token = legacyToken();
    await keyward.imports.importKeys([
      {
        hash: { value: sha256(token, "base64url"), algorithm: "sha256", encoding: "base64url" },
        owner: "alice",
        tier: "free",
      },
    ]);
    const changed = `${token.slice(0, -1)}${token.endsWith("a") ? "b" : "a"}`;
    for (const wrong of [changed, legacyToken(), token.slice(0, -1)]) {
      const result = await verify(wrong);
      expect(result.ok || { status: result.error.status, code: result.error.code }).toEqual({
        status: 401,
        code: "invalid_api_key",
      });
    }
    expect((await verify(token)).ok).toBe(true);
  });

  it("rehashes an imported key to Keyward's hash on first use: the old hash finds nothing after", async () => {
    const { keyward, store, verify } = setup();
    const token = legacyToken();
    const legacyHex = sha256(token, "hex");
    const [id] = (
      await keyward.imports.importKeys([
        {
          hash: { value: legacyHex, algorithm: "sha256", encoding: "hex" },
          owner: "alice",
          tier: "free",
        },
      ])
    ).importedIds;
    expect((await store.keys.findById(id!))?.secretHash).toBe(legacyHex);
    expect((await verify(token)).ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 0)); // the rehash runs after the answer
    const keywardHash = createHmac("sha256", pepper).update(token).digest("hex");
    const rehashed = await store.keys.findById(id!);
    expect(rehashed?.secretHash).toBe(keywardHash);
    expect(rehashed?.version).toBe(1);
    expect(await store.keys.findByHash(legacyHex)).toBeNull();
    expect((await verify(token)).ok).toBe(true);
  });

  it("stores a hash Keyward's own when Keyward has no pepper: nothing to rehash", async () => {
    const { keyward, store, verify, lookups } = setup({ keywardPepper: false });
    const token = legacyToken();
    const [id] = (
      await keyward.imports.importKeys([
        {
          hash: { value: sha256(token, "base64url"), algorithm: "sha256", encoding: "base64url" },
          owner: "alice",
          tier: "free",
        },
      ])
    ).importedIds;
    lookups.peek = 0;
    expect((await verify(token)).ok).toBe(true);
    expect(lookups.peek).toBe(1); // found at once under the one hash, the legacy one and Keyward's
    expect((await store.keys.findById(id!))?.secretHash).toBe(sha256(token, "hex"));
  });

  it("verifies a key the old system hashed with its own pepper (HMAC), then rehashes it", async () => {
    const { keyward, store, verify } = setup();
    const token = legacyToken();
    const value = createHmac("sha256", legacyPepper).update(token).digest("base64url");
    const [id] = (
      await keyward.imports.importKeys([
        {
          hash: { value, algorithm: "sha256", encoding: "base64url", pepper: "old" },
          owner: "alice",
          tier: "free",
        },
      ])
    ).importedIds;
    expect((await verify(token)).ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect((await store.keys.findById(id!))?.secretHash).toBe(
      createHmac("sha256", pepper).update(token).digest("hex"),
    );
    expect((await verify(token)).ok).toBe(true);
  });

  it("imports expired, disabled and credit-limited keys as such", async () => {
    const { keyward, verify, clock } = setup();
    const [expired, disabled, metered] = [legacyToken(), legacyToken(), legacyToken()];
    const record = (token: string) => ({
      hash: { value: sha256(token, "hex"), algorithm: "sha256", encoding: "hex" },
      owner: "alice",
      tier: "free",
    });
    await keyward.imports.importKeys([
      {
        ...record(expired),
        expiresAt: new Date(clock.now() - 1000).toISOString(),
        createdAt: "2025-01-01T00:00:00Z",
      },
      { ...record(disabled), enabled: false },
      { ...record(metered), credits: { remaining: 2 } },
    ]);
    const refusal = async (token: string) => {
      const result = await verify(token);
      return result.ok ? "ok" : result.error.detail;
    };
    expect(await refusal(expired)).toBe("API key has expired");
    expect(await refusal(disabled)).toBe("API key is disabled");
    expect(await refusal(metered)).toBe("ok");
    expect(await refusal(metered)).toBe("ok");
    const third = await verify(metered);
    expect(third.ok || third.error.status).toBe(429);
    const listed = await keyward.keys.list("alice");
    expect(listed.map((key) => key.status).sort()).toEqual(["active", "disabled", "expired"]);
    expect(listed.find((key) => key.status === "expired")?.createdAt).toBe(
      "2025-01-01T00:00:00.000Z",
    );
  });

  it("shows the old system's last use as lastUsedAt until Keyward counts one of its own", async () => {
    const { keyward, verify, clock } = setup();
    const token = legacyToken();
    const [id] = (
      await keyward.imports.importKeys([
        { key: token, owner: "alice", tier: "free", lastUsedAt: "2026-05-01T10:00:00Z" },
      ])
    ).importedIds;
    expect((await keyward.keys.list("alice"))[0]?.lastUsedAt).toBe("2026-05-01T10:00:00.000Z");
    expect((await keyward.keys.usage("alice", id!)).lastUsedAt).toBe("2026-05-01T10:00:00.000Z");
    expect((await keyward.keys.usage("alice", id!)).totalRequests).toBe(0);
    clock.advance(60_000);
    expect((await verify(token)).ok).toBe(true);
    const usage = await keyward.keys.usage("alice", id!);
    expect([usage.lastUsedAt, usage.totalRequests]).toEqual([
      new Date(clock.now()).toISOString(),
      1,
    ]);
    expect((await keyward.keys.list("alice"))[0]?.lastUsedAt).toBe(
      new Date(clock.now()).toISOString(),
    );
  });

  it("changes nothing when run again, after a rehash too; a dry run writes nothing", async () => {
    const { keyward, store, verify } = setup();
    const tokens = [legacyToken(), legacyToken()];
    const records = [
      {
        hash: { value: sha256(tokens[0]!, "hex"), algorithm: "sha256", encoding: "hex" },
        owner: "alice",
        tier: "free",
      },
      { key: tokens[1], owner: "alice", tier: "free" },
    ];
    expect(keyward.imports.check(records)).toEqual({ received: 2, refused: [], skipped: [] });
    const dry = await keyward.imports.importKeys(records, { dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, imported: 2, unchanged: 0 });
    expect(store.keys.snapshot()).toEqual([]);
    await keyward.imports.importKeys(records);
    expect((await verify(tokens[0]!)).ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 0));
    const before = structuredClone(store.keys.snapshot());
    expect(await keyward.imports.importKeys(records)).toMatchObject({
      imported: 0,
      unchanged: 2,
      refused: [],
    });
    expect(await keyward.imports.importKeys(records, { dryRun: true })).toMatchObject({
      imported: 0,
      unchanged: 2,
    });
    expect(store.keys.snapshot()).toEqual(before);
    // The same secret given as plaintext and as its hash is one key.
    const again = await keyward.imports.importKeys([
      { key: tokens[0], owner: "alice", tier: "free" },
    ]);
    expect(again).toMatchObject({ imported: 0, unchanged: 1 });
  });

  it("refuses the whole call when any record is bad, naming each problem, and writes nothing", async () => {
    const { keyward, store } = setup();
    const good = {
      hash: { value: sha256(legacyToken(), "hex"), algorithm: "sha256", encoding: "hex" },
      owner: "alice",
      tier: "free",
    };
    const records = [
      good,
      { owner: "alice", tier: "free" },
      { ...good, key: legacyToken() },
      { ...good, hash: { ...good.hash, value: "not-a-digest" } },
      { ...good, hash: { ...good.hash, encoding: "base32" } },
      { ...good, hash: { ...good.hash, pepper: "unknown" } },
      {
        hash: { value: sha256(legacyToken(), "hex"), algorithm: "sha256", encoding: "hex" },
        owner: "alice",
        tier: "gold",
        scopes: ["profile:read", "admin", "profile:read"],
      },
      {
        hash: { value: sha256(legacyToken(), "hex"), algorithm: "sha256", encoding: "hex" },
        owner: { type: "team", id: "x" },
        tier: "free",
        expiresAt: "tomorrow",
      },
      good,
      "not a record",
    ];
    const report = await keyward.imports.importKeys(records);
    // `check` finds the same, without the store.
    expect(keyward.imports.check(records)).toEqual({
      received: 10,
      refused: report.refused,
      skipped: [],
    });
    expect(report.imported).toBe(0);
    expect(store.keys.snapshot()).toEqual([]);
    const problems = Object.fromEntries(
      report.refused.map(({ index, issues }) => [
        index,
        issues.map((issue) => `${issue.loc.join(".")}:${issue.type}`),
      ]),
    );
    expect(problems).toEqual({
      1: [":value_error"],

      2: [":value_error"],
      3: ["hash.value:value_error"],
      4: ["hash.encoding:value_error"],
      5: ["hash.pepper:value_error"],
      6: ["tier:literal_error", "scopes.1:literal_error", "scopes.2:value_error"],
      7: ["owner.type:literal_error", "expiresAt:datetime_parsing"],
      8: [":value_error"],
      9: [":model_type"],
    });
    expect(report.refused.find((entry) => entry.index === 8)?.issues[0]?.msg).toBe(
      "Value error, the same key as record 0",
    );
  });
});

describe("imports(): verify's cost", () => {
  it("looks a Keyward key up once, as without imports(), and a forged imported-format token under two hashes", async () => {
    const { keyward, verify, lookups } = setup();
    const { key } = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "native",
      scopes: ["profile:read"],
      tier: "free",
    });
    lookups.peek = 0;
    expect((await verify(key)).ok).toBe(true);
    expect(lookups).toEqual({ peek: 1, find: 0 });
    lookups.peek = 0;
    // Another last character: a random key may already end in the one a fixed edit would write.
    const forged = `${key.slice(0, -1)}${key.endsWith("x") ? "y" : "x"}`;
    expect((await verify(forged)).ok).toBe(false);
    expect(lookups).toEqual({ peek: 1, find: 0 });
    lookups.peek = 0;
    expect((await verify(legacyToken())).ok).toBe(false);
    // Keyward's hash, then the old system's two (SHA-256, its pepper's HMAC): each peeked once.
    expect(lookups.peek).toBe(4);
  });

  it("takes only tokens with a configured prefix, and never a JWT-shaped one", async () => {
    const { keyward, verify, lookups } = setup({ config: { prefixes: ["ba_"] } });
    const token = legacyToken("xy_");
    // Such a key is refused by the import, or left out with skipUnverifiable: verify never looks it up.
    const refused = await keyward.imports.importKeys([
      { key: token, owner: "alice", tier: "free" },
    ]);
    expect(refused.refused[0]?.issues[0]).toMatchObject({ loc: ["key"], type: "unverifiable" });
    const skipped = await keyward.imports.importKeys(
      [{ key: token, owner: "alice", tier: "free" }],
      { skipUnverifiable: true },
    );
    expect([skipped.imported, skipped.skipped.map((entry) => entry.index)]).toEqual([0, [0]]);
    lookups.peek = 0;
    const other = await verify(token);
    expect(other.ok || other.error.code).toBe("invalid_token");
    expect(lookups.peek).toBe(0);
    const jwtShaped = await verify("ba_aaaaaaaaaaaaaaaa.bbbbbbbbbbbb.cccccccccccc");
    expect(jwtShaped.ok || jwtShaped.error.code).toBe("invalid_token");
    expect(lookups.peek).toBe(0);
  });

  it("finds an imported key whose prefix is Keyward's own but which has not its shape", async () => {
    const { keyward, verify } = setup({ config: { prefixes: ["sk_live_"] } });
    const token = legacyToken("sk_live_");
    await keyward.imports.importKeys([
      {
        hash: { value: sha256(token, "hex"), algorithm: "sha256", encoding: "hex" },
        owner: "alice",
        tier: "free",
      },
    ]);
    expect((await verify(token)).ok).toBe(true);
  });

  it("spends a client address's failed-lookup budget on forged imported-format tokens", async () => {
    const { verify, keyward, lookups } = setup({ noPeek: true });
    let refused: unknown;
    for (let i = 0; i < 200 && refused === undefined; i++) {
      const result = await keyward.verify(`Bearer ${legacyToken()}`, {
        route: "GET /x",
        clientIp: "203.0.113.7",
      });
      if (!result.ok && result.error.code === "failed_lookups_limited")
        refused = result.error.status;
    }
    expect(refused).toBe(429);
    // Refused before any lookup from then on; another address is not.
    const before = lookups.find;
    const result = await keyward.verify(`Bearer ${legacyToken()}`, {
      route: "GET /x",
      clientIp: "203.0.113.7",
    });
    expect(result.ok || result.error.code).toBe("failed_lookups_limited");
    expect(lookups.find).toBe(before);
    const elsewhere = await verify(legacyToken());
    expect(elsewhere.ok || elsewhere.error.code).toBe("invalid_api_key");
  });
});

describe("imports(): configuration", () => {
  it("refuses a malformed configuration, and a store that cannot import", () => {
    expect(() => imports({ prefixes: [] })).toThrow(/non-empty list/);
    expect(() => imports({ prefixes: ["a.b"] })).toThrow(/not a token prefix/);
    expect(() => imports({ peppers: { old: "" } })).toThrow(/non-empty/);
    const store = memoryStore();
    const { importKeys: _, ...keys } = store.keys;
    expect(() =>
      createKeyward({
        store: { ...store, keys },
        scopes,
        tiers,
        jwt: false,
        features: [imports()],
      }),
    ).toThrow(/keys.importKeys/);
  });
});
