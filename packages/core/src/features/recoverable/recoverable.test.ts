/** `recoverable()` end to end over HTTP on the memory store: sealing, revealing, the key ring's rotation. */
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { manualClock } from "../../clock.js";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import { events } from "../events/index.js";
import { openapi } from "../openapi/index.js";
import { organizations } from "../organizations/index.js";
import { recoverable } from "./index.js";

const jwtSecret = "a-test-secret-of-at-least-32-characters!";
const scopes = { "profile:read": "Read" };
const tiers = { free: { rateLimit: { limit: 1000, window: "1m" } } };
const kek = (fill: number) => btoa(String.fromCharCode(...new Uint8Array(32).fill(fill)));
const clock = manualClock(Date.parse("2026-06-01T00:00:00Z"));

function instance(
  store: ReturnType<typeof memoryStore>,
  keyRing: { current: string; keys: Record<string, string> },
) {
  return createKeyward({
    store,
    scopes,
    tiers,
    jwt: { secret: jwtSecret },
    clock,
    logger: false,
    features: [recoverable({ keyRing, maxSessionAge: "5m" }), events()],
  });
}

const session = (sub: string, signedInSecondsAgo = 0) => {
  const iat = Math.floor(clock.now() / 1000) - signedInSecondsAgo;
  return new SignJWT({ sub, tier: "free" })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuedAt(iat)
    .setExpirationTime(iat + 3600)
    .sign(new TextEncoder().encode(jwtSecret));
};

type Instance = ReturnType<typeof instance>;
const call = async (keyward: Instance, method: string, path: string, token: string) => {
  const response = await keyward.handle(
    new Request(`http://localhost/api/v1/api-keys${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(method === "POST" && path === ""
        ? { body: JSON.stringify({ name: "k", scopes: ["profile:read"], tier: "free" }) }
        : {}),
    }),
  );
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
};

describe("recoverable(): revealing a key's secret", () => {
  it("reveals the secret created, then the rotated one, to its owner with a fresh session; each reveal an event", async () => {
    const store = memoryStore();
    const keyward = instance(store, { current: "k1", keys: { k1: kek(1) } });
    const alice = await session("alice");
    const created = await call(keyward, "POST", "", alice);
    expect(created.status).toBe(201);
    const revealed = await call(keyward, "POST", `/${created.body.id}/reveal`, alice);
    expect(revealed.status).toBe(200);
    expect(revealed.body).toEqual({
      id: created.body.id,
      hint: created.body.hint,
      key: created.body.key,
    });
    expect(revealed.headers.get("cache-control")).toBe("no-store");

    clock.advance(1_000); // the two reveals' events apart in time, so their order is certain
    const rotated = await call(keyward, "POST", `/${created.body.id}/rotate`, alice);
    expect((await call(keyward, "POST", `/${created.body.id}/reveal`, alice)).body.key).toBe(
      rotated.body.key,
    );
    const logged = await keyward.events.list({ owner: "alice", types: ["key.revealed"] });
    expect(logged.data.map((event) => event.data)).toEqual([
      { hint: rotated.body.hint },
      { hint: created.body.hint },
    ]);
    // Never the secret in the store, sealed or not.
    const stored = JSON.stringify(store.keys.snapshot());
    expect(stored).not.toContain(created.body.key as string);
    expect(stored).not.toContain(rotated.body.key as string);
    expect(stored).toContain('"sealedSecret":"v1.k1.');
    // The sealed text stays in the store: no record, listing or event shows it.
    const shown = JSON.stringify([
      await keyward.keys.list("alice"),
      await keyward.keys.get(created.body.id as string),
      await keyward.events.list({ owner: "alice" }),
      (await call(keyward, "GET", "", alice)).body,
    ]);
    expect(shown).not.toContain("v1.k1.");
    expect(shown).not.toContain("sealed");
  });

  it("refuses an old session (403), another user's key (403), a revoked key (410), nothing revealed", async () => {
    const keyward = instance(memoryStore(), { current: "k1", keys: { k1: kek(1) } });
    const alice = await session("alice");
    const { body } = await call(keyward, "POST", "", alice);
    const stale = await call(keyward, "POST", `/${body.id}/reveal`, await session("alice", 301));
    expect([stale.status, stale.body.code]).toEqual([403, "reauthentication_required"]);
    const bob = await call(keyward, "POST", `/${body.id}/reveal`, await session("bob"));
    expect(bob.status).toBe(403);
    expect(JSON.stringify(bob.body)).not.toContain(body.key as string);
    await call(keyward, "DELETE", `/${body.id}`, alice);
    expect((await call(keyward, "POST", `/${body.id}/reveal`, alice)).status).toBe(410);
    const logged = await keyward.events.list({ owner: "alice", types: ["key.revealed"] });
    expect(logged.data).toEqual([]);
  });

  it("reveals keys sealed before a key-ring rotation; a stolen store without the ring reveals nothing", async () => {
    const store = memoryStore();
    const before = instance(store, { current: "k1", keys: { k1: kek(1) } });
    const alice = await session("alice");
    const old = await call(before, "POST", "", alice);
    // The ring rotated: k2 seals from now on, k1 still opens.
    const after = instance(store, { current: "k2", keys: { k1: kek(1), k2: kek(2) } });
    const fresh = await call(after, "POST", "", alice);
    expect(
      store.keys
        .snapshot()
        .map((key) => String(key.fields?.sealedSecret).split(".")[1])
        .sort(),
    ).toEqual(["k1", "k2"]);
    expect((await call(after, "POST", `/${old.body.id}/reveal`, alice)).body.key).toBe(
      old.body.key,
    );
    expect((await call(after, "POST", `/${fresh.body.id}/reveal`, alice)).body.key).toBe(
      fresh.body.key,
    );

    // The same records under another ring (a thief's guess, or a lost key): 409, nothing shown.
    const thief = instance(store, { current: "k1", keys: { k1: kek(9) } });
    for (const id of [old.body.id, fresh.body.id]) {
      const refused = await call(thief, "POST", `/${id}/reveal`, alice);
      expect(refused.status).toBe(409);
      expect(JSON.stringify(refused.body)).not.toMatch(/sk_live_/);
    }
  });

  it("keeps the six endpoints as they are without the feature: no reveal route, no sealed secret", async () => {
    const store = memoryStore();
    const keyward = createKeyward({
      store,
      scopes,
      tiers,
      jwt: { secret: jwtSecret },
      clock,
      logger: false,
    });
    const alice = await session("alice");
    const { body } = await call(keyward as Instance, "POST", "", alice);
    expect((await call(keyward as Instance, "POST", `/${body.id}/reveal`, alice)).status).toBe(404);
    expect(store.keys.snapshot()[0]).not.toHaveProperty("sealedSecret");
  });

  it("adds its path to the OpenAPI document when openapi() is listed", async () => {
    const keyward = createKeyward({
      store: memoryStore(),
      scopes,
      tiers,
      jwt: { secret: jwtSecret },
      logger: false,
      features: [recoverable({ keyRing: { current: "k1", keys: { k1: kek(1) } } }), openapi()],
    });
    const document = keyward.openapi();
    expect(document.paths["/api/v1/api-keys/{key_id}/reveal"]?.post?.operationId).toBe("revealKey");
  });

  it("refuses a malformed configuration, naming the field", () => {
    expect(() => recoverable({ keyRing: { current: "k1", keys: { k1: "c2hvcnQ=" } } })).toThrow(
      /32 bytes/,
    );
    expect(() => recoverable({ keyRing: { current: "k2", keys: { k1: kek(1) } } })).toThrow(
      /`current` "k2"/,
    );
    expect(() =>
      recoverable({ keyRing: { current: "k1", keys: { k1: kek(1) } }, maxSessionAge: "soon" }),
    ).toThrow(/maxSessionAge/);
  });
});

describe("recoverable(): who may reveal", () => {
  /** acme: alice its owner (uncapped, enterprise), bob a developer granting profile scopes only. */
  const orgScopes = { "profile:read": "Read", "org:write": "Admin" };
  const ladder = {
    free: { rateLimit: { limit: 100, window: "1m" } },
    enterprise: { rateLimit: { limit: 1000, window: "1m" } },
  };
  const orgInstance = () =>
    createKeyward({
      store: memoryStore(),
      scopes: orgScopes,
      tiers: ladder,
      jwt: { secret: jwtSecret },
      clock,
      logger: false,
      features: [
        recoverable({ keyRing: { current: "k1", keys: { k1: kek(1) } } }),
        organizations({
          roles: {
            manage: ["owner", "developer"],
            read: ["owner", "developer"],
            developer: { grants: ["profile:read"] },
          },
          memberships: (claims) => [
            {
              id: "acme",
              role: claims.sub === "alice" ? "owner" : "developer",
              ...(typeof claims.orgTier === "string" ? { tier: claims.orgTier } : {}),
            },
          ],
        }),
        events(),
      ],
    });
  const member = (sub: string, claims: Record<string, unknown> = {}, issuedAtOffset = 0) => {
    const iat = Math.floor(clock.now() / 1000) + issuedAtOffset;
    return new SignJWT({ sub, tier: "free", ...claims })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt(iat)
      .setExpirationTime(Math.max(iat, Math.floor(clock.now() / 1000)) + 3600)
      .sign(new TextEncoder().encode(jwtSecret));
  };
  const send = async (
    keyward: ReturnType<typeof orgInstance>,
    path: string,
    token: string,
    body?: unknown,
  ) => {
    const response = await keyward.handle(
      new Request(`http://localhost/api/v1/api-keys${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it("refuses a developer whose role may not grant the key's scopes, as rotate does (403, no event)", async () => {
    const keyward = orgInstance();
    const alice = await member("alice", { orgTier: "enterprise" });
    const admin = await send(keyward, "", alice, {
      name: "admin",
      scopes: ["org:write"],
      tier: "enterprise",
      organizationId: "acme",
    });
    expect(admin.status).toBe(201);
    const bob = await member("bob", { orgTier: "enterprise" });
    const rotate = await send(keyward, `/${admin.body.id}/rotate`, bob);
    const reveal = await send(keyward, `/${admin.body.id}/reveal`, bob);
    expect([rotate.status, rotate.body.code]).toEqual([403, "scope_not_grantable"]);
    expect([reveal.status, reveal.body.code]).toEqual([403, "scope_not_grantable"]);
    expect(JSON.stringify(reveal.body)).not.toContain(admin.body.key as string);
    // A key within bob's grants he reveals; the owner reveals the admin key.
    const own = await send(keyward, "", bob, {
      name: "mine",
      scopes: ["profile:read"],
      tier: "free",
      organizationId: "acme",
    });
    expect((await send(keyward, `/${own.body.id}/reveal`, bob)).body.key).toBe(own.body.key);
    expect((await send(keyward, `/${admin.body.id}/reveal`, alice)).status).toBe(200);
    const logged = await keyward.events.list({
      owner: { type: "organization", id: "acme" },
      types: ["key.revealed"],
    });
    expect(logged.data.map((event) => event.keyId).sort()).toEqual(
      [own.body.id, admin.body.id].sort(),
    );
  });

  it("refuses a member whose account tier is below the key's tier, as rotate does", async () => {
    const keyward = orgInstance();
    const alice = await member("alice", { orgTier: "enterprise" });
    const admin = await send(keyward, "", alice, {
      name: "big",
      scopes: ["profile:read"],
      tier: "enterprise",
      organizationId: "acme",
    });
    // The organization's tier as alice's session now says it: free.
    const downgraded = await member("alice", { orgTier: "free" });
    const rotate = await send(keyward, `/${admin.body.id}/rotate`, downgraded);
    const reveal = await send(keyward, `/${admin.body.id}/reveal`, downgraded);
    expect([rotate.status, rotate.body.code]).toEqual([403, "tier_not_allowed"]);
    expect([reveal.status, reveal.body.code]).toEqual([403, "tier_not_allowed"]);
  });

  it("refuses a session whose iat lies in the future (403 reauthentication_required)", async () => {
    const keyward = orgInstance();
    const alice = await member("alice");
    const { body } = await send(keyward, "", alice, {
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    for (const ahead of [3600, 86_400 * 365]) {
      const future = await send(keyward, `/${body.id}/reveal`, await member("alice", {}, ahead));
      expect([future.status, future.body.code]).toEqual([403, "reauthentication_required"]);
    }
    // A signer's clock a second fast is still a fresh sign-in.
    expect((await send(keyward, `/${body.id}/reveal`, await member("alice", {}, 1))).status).toBe(
      200,
    );
  });
});
