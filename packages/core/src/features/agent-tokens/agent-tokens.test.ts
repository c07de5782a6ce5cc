/**
 * `agentTokens()` on the memory store: the exchange, the published keys, `verify` of exchanged
 * tokens (audience, scopes, resources, lifetime), their parent key's changes, the signing ring's
 * rotation, and bad input on the exchange.
 */

import { Validator } from "@seriousme/openapi-schema-validator";
import { createLocalJWKSet, exportJWK, generateKeyPair, type JWK, jwtVerify } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../../clock.js";
import type { KeywardFeature } from "../../feature-interface/feature.js";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import { openapi } from "../openapi/index.js";
import { permissions } from "../permissions/index.js";
import { agentTokens, type SigningKeysConfig } from "./index.js";

const scopes = { "profile:read": "Read", "profile:write": "Write" };
const audience = "http://127.0.0.1:3000/mcp";
let k1: JWK;
let k2: JWK;

beforeAll(async () => {
  k1 = await exportJWK((await generateKeyPair("ES256", { extractable: true })).privateKey);
  k2 = await exportJWK((await generateKeyPair("EdDSA", { extractable: true })).privateKey);
});

function setup(
  options: {
    signingKeys?: SigningKeysConfig;
    maxTtl?: string;
    store?: ReturnType<typeof memoryStore>;
    clock?: ReturnType<typeof manualClock>;
    tierLimit?: number;
  } = {},
) {
  const clock = options.clock ?? manualClock(Date.parse("2026-12-01T00:00:00Z"));
  const store = options.store ?? memoryStore();
  const keyward = createKeyward({
    store,
    scopes,
    tiers: { free: { rateLimit: { limit: options.tierLimit ?? 1000, window: "1m" } } },
    clock,
    jwt: false,
    logger: false,
    features: [
      agentTokens({
        signingKeys: options.signingKeys ?? { current: "k1", keys: { k1 } },
        ...(options.maxTtl === undefined ? {} : { maxTtl: options.maxTtl }),
      }),
      permissions(),
      openapi(),
    ],
  });
  const newKey = (keyScopes = ["profile:read"], extra: Record<string, unknown> = {}) =>
    keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "agent",
      scopes: keyScopes,
      tier: "free",
      ...extra,
    });
  const exchange = async (key: string, body: unknown) => {
    const response = await keyward.handle(
      new Request("http://localhost/api/v1/api-keys/tokens", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    );
    return {
      status: response.status,
      body: (await response.json()) as Record<string, unknown>,
      headers: response.headers,
    };
  };
  const tokenFor = async (key: string, body: Record<string, unknown> = { audience }) => {
    const { status, body: answer } = await exchange(key, body);
    expect(status).toBe(200);
    return answer.token as string;
  };
  const jwks = async () => {
    const response = await keyward.handle(
      new Request("http://localhost/api/v1/api-keys/jwks.json"),
    );
    return { response, body: (await response.json()) as { keys: JWK[] } };
  };
  return { clock, store, keyward, newKey, exchange, tokenFor, jwks };
}

describe("agentTokens(): the exchange and the published keys", () => {
  it("signs a token that jose verifies from the published JWKS: aud, sub the owner, the key's id, a jti, exp = iat + ttl", async () => {
    const { newKey, exchange, jwks, clock } = setup();
    const { key, id } = await newKey();
    const { status, body, headers } = await exchange(key, { audience, ttl: 120 });
    expect(status).toBe(200);
    expect(headers.get("cache-control")).toBe("no-store");
    expect(body.expiresAt).toBe(new Date(clock.now() + 120_000).toISOString());
    expect(body.scopes).toEqual(["profile:read"]);
    const published = await jwks();
    expect(published.response.headers.get("cache-control")).toBe("public, max-age=300");
    expect(published.body.keys).toHaveLength(1);
    expect(published.body.keys[0]).not.toHaveProperty("d");
    const { payload, protectedHeader } = await jwtVerify(
      body.token as string,
      createLocalJWKSet(published.body),
      {
        audience,
        issuer: "keyward",
        currentDate: new Date(clock.now()),
      },
    );
    expect(protectedHeader).toMatchObject({ alg: "ES256", kid: "k1", typ: "keyward-agent+jwt" });
    expect(payload).toMatchObject({
      sub: "alice",
      key_id: id,
      scope: "profile:read",
      owner_type: "user",
    });
    expect(payload.exp! - payload.iat!).toBe(120);
    expect(typeof payload.jti).toBe("string");
    // Two exchanges, two ids.
    const again = await exchange(key, { audience });
    const { payload: second } = await jwtVerify(
      again.body.token as string,
      createLocalJWKSet(published.body),
      {
        currentDate: new Date(clock.now()),
      },
    );
    expect(second.jti).not.toBe(payload.jti);
  });

  it("tells of each token issued, on the bus as token.issued and to onIssued, never the token itself", async () => {
    const heard: unknown[] = [];
    const told: unknown[] = [];
    const listener: KeywardFeature<"listener"> = {
      name: "listener",
      install: ({ bus }) => {
        bus.subscribe("token.*", (message, topic) => heard.push({ topic, message }));
        return {};
      },
    };
    const clock = manualClock(Date.parse("2026-12-01T00:00:00Z"));
    const keyward = createKeyward({
      store: memoryStore(),
      scopes,
      tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
      clock,
      jwt: false,
      logger: false,
      onError: () => {},
      features: [
        agentTokens({
          signingKeys: { current: "k1", keys: { k1 } },
          onIssued: (token) => {
            told.push(token);
            throw new Error("a failing hook changes nothing");
          },
        }),
        listener,
      ],
    });
    const { key, id } = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "a",
      scopes: ["profile:read"],
      tier: "free",
    });
    const response = await keyward.handle(
      new Request("http://localhost/api/v1/api-keys/tokens", {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
        body: JSON.stringify({ audience, ttl: 60, resources: { profile: ["alice"] } }),
      }),
    );
    expect(response.status).toBe(200);
    const { token } = (await response.json()) as { token: string };
    const { payload } = await jwtVerify(
      token,
      createLocalJWKSet({ keys: [{ ...k1, d: undefined, kid: "k1" }] }),
      { currentDate: new Date(clock.now()) },
    );
    const expected = {
      jti: payload.jti,
      keyId: id,
      owner: { type: "user", id: "alice" },
      audience,
      scopes: ["profile:read"],
      resources: { profile: ["alice"] },
      issuedAt: "2026-12-01T00:00:00.000Z",
      expiresAt: "2026-12-01T00:01:00.000Z",
    };
    expect(told).toEqual([expected]);
    // On the bus as the audit log would keep it, though no events() is listed to keep it.
    expect(heard).toEqual([
      {
        topic: "token.issued",
        message: {
          id: expect.stringMatching(/^evt_[0-9A-Za-z]{24}$/),
          type: "token.issued",
          occurredAt: Date.parse("2026-12-01T00:00:00Z"),
          owner: { type: "user", id: "alice" },
          keyId: id,
          actor: { type: "system" },
          data: {
            jti: payload.jti,
            audience,
            scopes: ["profile:read"],
            resources: { profile: ["alice"] },
            expiresAt: "2026-12-01T00:01:00.000Z",
          },
        },
      },
    ]);
    expect(JSON.stringify(heard)).not.toContain(token.split(".")[2]);
  });

  it("caps the ttl at 15 minutes, or the configured maxTtl, and defaults to 5 minutes", async () => {
    const { newKey, exchange, clock } = setup({ maxTtl: "10m" });
    const { key } = await newKey();
    const tooLong = await exchange(key, { audience, ttl: 601 });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.detail).toEqual([
      {
        loc: ["body", "ttl"],
        msg: "The ttl must be between 1 and 600 seconds",
        type: "less_than_equal",
      },
    ]);
    expect((await exchange(key, { audience, ttl: 600 })).status).toBe(200);
    const byDefault = await exchange(key, { audience });
    expect(byDefault.body.expiresAt).toBe(new Date(clock.now() + 300_000).toISOString());
    expect(() => agentTokens({ maxTtl: "16m" })).toThrow(/between 1 second and 15 minutes/);
  });

  it("hands on at most the key's scopes (403 naming the one it lacks) and resources; a scope nobody has is a 422", async () => {
    const { newKey, exchange } = setup();
    const { key } = await newKey(["profile:read"], { resources: { profile: ["alice", "bob"] } });
    const lacking = await exchange(key, { audience, scopes: ["profile:write"] });
    expect(lacking.status).toBe(403);
    expect(lacking.body).toMatchObject({
      code: "scope_not_grantable",
      detail: expect.stringContaining("profile:write"),
    });
    const unknown = await exchange(key, { audience, scopes: ["profile:admin"] });
    expect(unknown.status).toBe(422);
    const outside = await exchange(key, { audience, resources: { profile: ["carol"] } });
    expect(outside.status).toBe(403);
    expect(outside.body).toMatchObject({
      code: "resource_not_allowed",
      detail: expect.stringContaining("carol"),
    });
    expect((await exchange(key, { audience, resources: { profile: ["alice"] } })).status).toBe(200);
  });

  it("refuses a revoked, disabled or expired key, a token, and a missing key, as verify does", async () => {
    const { keyward, newKey, exchange, tokenFor, clock } = setup();
    const revoked = await newKey();
    await keyward.keys.revoke("alice", revoked.id);
    expect((await exchange(revoked.key, { audience })).body).toMatchObject({
      code: "invalid_api_key",
      detail: "API key has been revoked",
    });
    const disabled = await newKey();
    await keyward.keys.update("alice", disabled.id, { enabled: false });
    expect((await exchange(disabled.key, { audience })).body).toMatchObject({
      detail: "API key is disabled",
    });
    const expiring = await newKey(["profile:read"], {
      expiresAt: new Date(clock.now() + 60_000).toISOString(),
    });
    const token = await tokenFor(expiring.key);
    clock.advance(61_000);
    expect((await exchange(expiring.key, { audience })).body).toMatchObject({
      detail: "API key has expired",
    });
    expect((await exchange(token, { audience })).status).toBe(401);
    const none = await keyward.handle(
      new Request("http://localhost/api/v1/api-keys/tokens", {
        method: "POST",
        body: JSON.stringify({ audience }),
      }),
    );
    expect(none.status).toBe(401);
  });

  it("is a use of the key: charged to its rate limit", async () => {
    const { newKey, exchange } = setup({ tierLimit: 2 });
    const { key } = await newKey();
    expect((await exchange(key, { audience })).status).toBe(200);
    expect((await exchange(key, { audience })).status).toBe(200);
    const third = await exchange(key, { audience });
    expect(third.status).toBe(429);
  });

  it("answers bad input with a 422 naming the field, and changes nothing (no use of the key)", async () => {
    const { keyward, newKey, exchange } = setup({ tierLimit: 1 });
    const { key, id } = await newKey();
    const bodies: [unknown, string][] = [
      [{}, "audience"],
      [{ audience: 42 }, "audience"],
      [{ audience: "" }, "audience"],
      [{ audience: "has space" }, "audience"],
      [{ audience: "x".repeat(513) }, "audience"],
      [{ audience, ttl: "60" }, "ttl"],
      [{ audience, ttl: 1.5 }, "ttl"],
      [{ audience, ttl: 0 }, "ttl"],
      [{ audience, ttl: 1e12 }, "ttl"],
      [{ audience, scopes: "profile:read" }, "scopes"],
      [{ audience, scopes: [1] }, "scopes"],
      [{ audience, scopes: ["nope"] }, "scopes"],
      [{ audience, resources: ["alice"] }, "resources"],
      [{ audience, resources: { profile: [] } }, "resources"],
      [{ audience, resources: { profile: [7] } }, "resources"],
      [{ audience, admin: true }, "admin"],
      [[audience], "body"],
      ["null", "body"],
    ];
    for (const [body, field] of bodies) {
      const answer = await exchange(key, body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      const detail = answer.body.detail as { loc: string[] }[];
      expect(
        detail.some(
          (issue) => issue.loc.includes(field) || (field === "body" && issue.loc[0] === "body"),
        ),
        JSON.stringify(body),
      ).toBe(true);
    }
    expect((await exchange(key, "{not json")).status).toBe(400);
    // Nothing used the key: its one request a minute is still there, and it was never used.
    expect((await keyward.keys.get(id)).lastUsedAt).toBeNull();
    expect((await exchange(key, { audience })).status).toBe(200);
  });
});

describe("agentTokens(): random bodies on the exchange", () => {
  it("answers every one below 500, a 422 listing issues under body, and issues a token only for an acceptable one", async () => {
    const { newKey, exchange } = setup();
    const { key } = await newKey(["profile:read"]);
    let state = 20261207;
    const next = () => {
      // mulberry32: seeded, so a failure names its input.
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
    const values: unknown[] = [
      null,
      true,
      0,
      -1,
      1.5,
      1e308,
      -1e308,
      901,
      60,
      "",
      "\u0000",
      "\ud800",
      "\u202e",
      "x".repeat(600),
      audience,
      [],
      ["profile:read"],
      ["profile:write"],
      ["nope"],
      [null],
      {},
      { profile: ["alice"] },
      { profile: "alice" },
      { "1bad": ["a"] },
      { profile: [] },
      [[[[[]]]]],
    ];
    const fields = ["audience", "scopes", "resources", "ttl", "extra", "__proto__"];
    for (let i = 0; i < 300; i++) {
      const body: Record<string, unknown> = {};
      const count = Math.floor(next() * 4);
      for (let f = 0; f < count; f++) body[pick(fields)] = pick(values);
      const sent = next() < 0.1 ? JSON.stringify(pick(values)) : JSON.stringify(body);
      const answer = await exchange(key, sent);
      const where = `case ${i}: ${sent.slice(0, 200)}`;
      expect(answer.status, where).toBeLessThan(500);
      if (answer.status === 200) {
        expect(typeof answer.body.token, where).toBe("string");
        continue;
      }
      expect(answer.body.token, where).toBeUndefined();
      if (answer.status === 422) {
        const issues = answer.body.detail as { loc: unknown[]; msg: string }[];
        expect(issues.length, where).toBeGreaterThan(0);
        for (const issue of issues) {
          expect(issue.loc[0], where).toBe("body");
          expect(issue.msg.length, where).toBeGreaterThan(0);
        }
      } else {
        expect([400, 403], where).toContain(answer.status);
      }
    }
  });
});

describe("agentTokens(): its OpenAPI paths and preflights", () => {
  it("describes the exchange (its ttl at the configured maximum) and the key set, in a valid document", async () => {
    const { keyward } = setup({ maxTtl: "10m" });
    const document = keyward.openapi() as {
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: {
              content: Record<string, { schema: { properties: Record<string, unknown> } }>;
            };
          }
        >
      >;
    };
    const exchange = document.paths["/api/v1/api-keys/tokens"]!;
    expect(Object.keys(exchange).sort()).toEqual(["options", "post"]);
    expect(
      exchange.post!.requestBody!.content["application/json"]!.schema.properties.ttl,
    ).toMatchObject({ maximum: 600 });
    expect(Object.keys(document.paths["/api/v1/api-keys/jwks.json"]!).sort()).toEqual([
      "get",
      "options",
    ]);
    expect(
      (await new Validator().validate(document as unknown as Record<string, unknown>)).valid,
    ).toBe(true);
    for (const [path, wrong, allowed] of [
      ["tokens", "GET", "POST"],
      ["jwks.json", "POST", "GET, HEAD"],
    ] as const) {
      const url = `http://localhost/api/v1/api-keys/${path}`;
      expect((await keyward.handle(new Request(url, { method: "OPTIONS" }))).status).toBe(204);
      const refused = await keyward.handle(new Request(url, { method: wrong }));
      expect(refused.status).toBe(405);
      expect(refused.headers.get("allow")).toBe(allowed);
      expect(await refused.json()).toMatchObject({ code: "method_not_allowed" });
    }
  });
});

describe("agentTokens(): verify of an exchanged token", () => {
  it("admits it only where the route declares its audience (localhost and 127.0.0.1 the same), as its key with the token's scopes", async () => {
    const { keyward, newKey, tokenFor } = setup();
    const { key, id } = await newKey(["profile:read", "profile:write"]);
    const token = await tokenFor(key, { audience, scopes: ["profile:read"] });
    const admitted = await keyward.verify(`Bearer ${token}`, {
      audience,
      route: "POST /mcp",
      scopes: ["profile:read"],
    });
    expect(admitted.ok).toBe(true);
    expect(admitted.ok && admitted.principal).toMatchObject({
      kind: "key",
      keyId: id,
      userId: "alice",
      scopes: ["profile:read"],
    });
    expect(
      (
        await keyward.verify(`Bearer ${token}`, {
          audience: "http://localhost:3000/mcp",
          route: "POST /mcp",
        })
      ).ok,
    ).toBe(true);
    const narrower = await keyward.verify(`Bearer ${token}`, {
      audience,
      route: "POST /mcp",
      scopes: ["profile:write"],
    });
    expect(narrower.ok || narrower.error.code).toBe("insufficient_scope");
    const elsewhere = await keyward.verify(`Bearer ${token}`, {
      audience: "http://127.0.0.1:3000/other",
      route: "GET /other",
    });
    expect(elsewhere.ok || elsewhere.error.detail).toBe("This token is for another audience");
    expect(elsewhere.ok || elsewhere.headers["WWW-Authenticate"]).toContain(
      'error="invalid_token"',
    );
    const undeclared = await keyward.verify(`Bearer ${token}`, { route: "GET /profiles/:slug" });
    expect(undeclared.ok || undeclared.error.detail).toMatch(/declares no audience/);
  });

  it("loses a scope its key loses", async () => {
    const { keyward, newKey, tokenFor } = setup();
    const { key, id } = await newKey(["profile:read", "profile:write"]);
    const token = await tokenFor(key, { audience, scopes: ["profile:read", "profile:write"] });
    const writing = { audience, route: "PUT /p", scopes: ["profile:write"] };
    expect((await keyward.verify(`Bearer ${token}`, writing)).ok).toBe(true);
    await keyward.keys.update("alice", id, { scopes: ["profile:read"] });
    const narrowed = await keyward.verify(`Bearer ${token}`, writing);
    expect(narrowed.ok || narrowed.error.code).toBe("insufficient_scope");
    expect(
      (await keyward.verify(`Bearer ${token}`, { ...writing, scopes: ["profile:read"] })).ok,
    ).toBe(true);
  });

  it("keeps to the token's resources", async () => {
    const { keyward, newKey, tokenFor } = setup();
    const { key } = await newKey();
    const token = await tokenFor(key, { audience, resources: { profile: ["alice"] } });
    const options = { audience, route: "GET /p/:slug" };
    expect(
      (await keyward.verify(`Bearer ${token}`, { ...options, resource: { profile: "alice" } })).ok,
    ).toBe(true);
    const other = await keyward.verify(`Bearer ${token}`, {
      ...options,
      resource: { profile: "bob" },
    });
    expect(other.ok || other.error.code).toBe("resource_not_allowed");
  });

  it("refuses it once it expires, and a token with a changed byte", async () => {
    const { keyward, newKey, tokenFor, clock } = setup();
    const { key } = await newKey();
    const token = await tokenFor(key, { audience, ttl: 60 });
    expect((await keyward.verify(`Bearer ${token}`, { audience, route: "POST /mcp" })).ok).toBe(
      true,
    );
    clock.advance(60_000);
    const expired = await keyward.verify(`Bearer ${token}`, { audience, route: "POST /mcp" });
    expect(expired.ok || expired.error.detail).toBe("Token has expired");
    const fresh = await tokenFor(key, { audience });
    const [header, payload, signature] = fresh.split(".");
    const tampered = `${header}.${payload}.${signature!.slice(0, -2)}${signature!.endsWith("A") ? "BA" : "AA"}`;
    const refused = await keyward.verify(`Bearer ${tampered}`, { audience, route: "POST /mcp" });
    expect(refused.ok || refused.error.detail).toBe("Invalid token");
  });

  it("refuses it at once when its key is revoked, disabled or rotated, and charges its key", async () => {
    const { keyward, newKey, tokenFor } = setup({ tierLimit: 4 });
    const options = { audience, route: "POST /mcp" };
    const revoked = await newKey();
    const revokedToken = await tokenFor(revoked.key);
    expect((await keyward.verify(`Bearer ${revokedToken}`, options)).ok).toBe(true);
    await keyward.keys.revoke("alice", revoked.id);
    const afterRevoke = await keyward.verify(`Bearer ${revokedToken}`, options);
    expect(afterRevoke.ok || afterRevoke.error.detail).toBe("API key has been revoked");

    const disabled = await newKey();
    const disabledToken = await tokenFor(disabled.key);
    await keyward.keys.update("alice", disabled.id, { enabled: false });
    const afterDisable = await keyward.verify(`Bearer ${disabledToken}`, options);
    expect(afterDisable.ok || afterDisable.error.detail).toBe("API key is disabled");

    const rotated = await newKey();
    const rotatedToken = await tokenFor(rotated.key);
    expect((await keyward.verify(`Bearer ${rotatedToken}`, options)).ok).toBe(true);
    const renewed = await keyward.keys.rotate("alice", rotated.id);
    const afterRotate = await keyward.verify(`Bearer ${rotatedToken}`, options);
    expect(afterRotate.ok || afterRotate.error.detail).toMatch(/rotated/);
    // The new secret's tokens work. Uses of the key this minute: two exchanges and two admitted
    // verifications (the refused one charged nothing), so the fifth is over its limit of four.
    const renewedToken = await tokenFor(renewed.key);
    expect((await keyward.verify(`Bearer ${renewedToken}`, options)).ok).toBe(true);
    const limited = await keyward.verify(`Bearer ${renewedToken}`, options);
    expect(limited.ok || limited.error.code).toBe("rate_limited");
  });

  it("reads the key by id once per secret an instance meets, then answers from the key cache", async () => {
    const { keyward, store, newKey, tokenFor } = setup();
    const { key } = await newKey();
    let reads = 0;
    const findById = store.keys.findById.bind(store.keys);
    store.keys.findById = (id) => {
      reads++;
      return findById(id);
    };
    const first = await tokenFor(key);
    const second = await tokenFor(key);
    for (const token of [first, second, first, second]) {
      expect((await keyward.verify(`Bearer ${token}`, { audience, route: "POST /mcp" })).ok).toBe(
        true,
      );
    }
    expect(reads).toBe(1);
  });
});

describe("agentTokens(): the signing keys' rotation", () => {
  it("publishes the next key before it signs, and keeps tokens the old key signed valid until they expire", async () => {
    const clock = manualClock(Date.parse("2026-12-01T00:00:00Z"));
    const store = memoryStore();
    const before = setup({ clock, store, signingKeys: { current: "k1", keys: { k1 } } });
    // Step 1: k2 listed, k1 still signing; step 2: k2 signs, k1 still listed.
    const listed = setup({ clock, store, signingKeys: { current: "k1", keys: { k1, k2 } } });
    const after = setup({ clock, store, signingKeys: { current: "k2", keys: { k1, k2 } } });
    const { key } = await before.newKey();
    const old = await before.tokenFor(key, { audience, ttl: 600 });
    expect((await listed.jwks()).body.keys.map((jwk) => jwk.kid)).toEqual(["k1", "k2"]);
    expect((await after.jwks()).body.keys.map((jwk) => [jwk.kid, jwk.alg])).toEqual([
      ["k2", "EdDSA"],
      ["k1", "ES256"],
    ]);
    const fresh = await after.tokenFor(key, { audience });
    const options = { audience, route: "POST /mcp" };
    // The published ring (step 1) verifies what the next key signs.
    expect((await listed.keyward.verify(`Bearer ${fresh}`, options)).ok).toBe(true);
    expect((await after.keyward.verify(`Bearer ${old}`, options)).ok).toBe(true);
    expect((await before.keyward.verify(`Bearer ${fresh}`, options)).ok).toBe(false);
    const { payload } = await jwtVerify(old, createLocalJWKSet((await after.jwks()).body), {
      currentDate: new Date(clock.now()),
    });
    expect(payload.key_id).toBeDefined();
    clock.advance(600_000);
    const expired = await after.keyward.verify(`Bearer ${old}`, options);
    expect(expired.ok || expired.error.detail).toBe("Token has expired");
  });

  it("refuses a ring without its current key, or a key that is not a private ES256/EdDSA JWK", () => {
    expect(() => agentTokens({ signingKeys: { current: "k9", keys: { k1 } } })).toThrow(
      /`current` "k9" is not one of the keys/,
    );
    const { d: _, ...publicOnly } = k1;
    expect(() => agentTokens({ signingKeys: { current: "k1", keys: { k1: publicOnly } } })).toThrow(
      /private JWK/,
    );
  });
});
