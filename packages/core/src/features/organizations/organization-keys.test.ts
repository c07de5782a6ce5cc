import { describe, expect, it, vi } from "vitest";
import { manualClock } from "../../clock.js";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import { organizations } from "./index.js";
import type { OrganizationsConfig } from "./membership.js";

const scopes = { "profile:read": "Read profiles" };
const tiers = {
  free: { rateLimit: { limit: 60, window: "1m" } },
  pro: { rateLimit: { limit: 600, window: "1m" } },
};
const acme = { type: "organization", id: "acme" } as const;
const fields = { name: "team key", scopes: ["profile:read"], tier: "pro" };

const jwtSecret = "organization-test-secret-of-at-least-32-bytes";

/** An instance with `memberships`, and a key-management call as "bob" (account tier free). */
async function signedIn(memberships: OrganizationsConfig["memberships"]) {
  const keyward = createKeyward({
    store: memoryStore(),
    scopes,
    tiers,
    jwt: { secret: jwtSecret },
    features: [organizations({ memberships })],
    logger: false,
  });
  const { SignJWT } = await import("jose");
  const token = await new SignJWT({ sub: "bob", tier: "free" })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuedAt()
    .setExpirationTime("10m")
    .sign(new TextEncoder().encode(jwtSecret));
  const call = (method: string, path: string, body?: unknown) =>
    keyward.handle(
      new Request(`http://host.test/api/v1/api-keys${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  return { keyward, call };
}

const instance = (config?: OrganizationsConfig) =>
  createKeyward({
    store: memoryStore(),
    scopes,
    tiers,
    clock: manualClock(Date.parse("2026-05-01T00:00:00Z")),
    logger: false,
    ...(config ? { features: [organizations(config)] } : {}),
  });

describe("organization keys through keys.* (the operator's API)", () => {
  it("creates, lists, rotates, revokes and reads usage of an organization's key", async () => {
    const keyward = instance();
    const created = await keyward.keys.create({
      owner: acme,
      createdBy: "bob",
      accountTier: "pro",
      ...fields,
    });
    expect(created).toMatchObject({ owner: acme, createdBy: "bob", tier: "pro" });
    expect((await keyward.keys.list(acme)).map((key) => key.id)).toEqual([created.id]);
    // A user with the organization's id owns nothing of it.
    expect(await keyward.keys.list("acme")).toEqual([]);
    await expect(keyward.keys.rotate("acme", created.id)).rejects.toMatchObject({
      code: "not_owner",
    });
    const verified = await keyward.verify(`Bearer ${created.key}`, { route: "GET /x" });
    expect(verified.ok && verified.principal).toMatchObject({
      kind: "key",
      owner: acme,
      createdBy: "bob",
    });
    // No user owns an organization's key: code that reads `userId` never takes "acme" for a user.
    expect(verified.ok && "userId" in verified.principal).toBe(false);
    const own = await keyward.keys.create({ ownerId: "acme", accountTier: "pro", ...fields });
    const usersOwn = await keyward.verify(`Bearer ${own.key}`, { route: "GET /x" });
    expect(usersOwn.ok && usersOwn.principal).toMatchObject({
      kind: "key",
      owner: { type: "user", id: "acme" },
      userId: "acme",
    });
    const rotated = await keyward.keys.rotate(acme, created.id);
    expect((await keyward.keys.usage(acme, created.id)).totalRequests).toBe(1);
    expect(await keyward.keys.revoke(acme, rotated.id)).toMatchObject({ status: "revoked" });
  });

  it("caps an organization's keys at the organization's tier, set like an account's", async () => {
    const keyward = instance();
    const created = await keyward.keys.create({
      owner: acme,
      createdBy: "bob",
      accountTier: "pro",
      ...fields,
    });
    await keyward.keys.setAccountTier(acme, "free");
    const verified = await keyward.verify(`Bearer ${created.key}`, { route: "GET /x" });
    expect(verified.ok && verified.principal.tier).toBe("free");
    await expect(
      keyward.keys.create({ owner: acme, createdBy: "bob", accountTier: "free", ...fields }),
    ).rejects.toMatchObject({ code: "tier_not_allowed" });
  });

  it("refuses an organization's key without a creator, and a bad owner, as the host's bug", async () => {
    const keyward = instance();
    await expect(
      keyward.keys.create({ owner: acme, accountTier: "pro", ...fields }),
    ).rejects.toThrow(/needs `createdBy`/);
    await expect(
      keyward.keys.create({
        owner: acme,
        ownerId: "alice",
        createdBy: "bob",
        accountTier: "pro",
        ...fields,
      }),
    ).rejects.toThrow(/exactly one of `ownerId` and `owner`/);
    await expect(keyward.keys.list({ type: "team" as "organization", id: "acme" })).rejects.toThrow(
      TypeError,
    );
    await expect(keyward.keys.list({ type: "organization", id: "" })).rejects.toThrow(
      /organization id is missing/,
    );
  });
});

describe("the organizations option", () => {
  it("is checked at start", () => {
    expect(() => instance({} as never)).toThrow(/organizations.memberships` must be a function/);
    expect(() => instance({ memberships: () => [], roles: { manage: "admin" as never } })).toThrow(
      /organizations.roles.manage` must be a list of role names/,
    );
  });

  it("asks memberships on every call, so a membership that ends applies at once", async () => {
    let role = "admin";
    const memberships = vi.fn(() => [{ id: "acme", role, tier: "pro" }]);
    const { call } = await signedIn(memberships);
    const created = await call("POST", "", { ...fields, organizationId: "acme" });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    role = "member";
    const refused = await call("DELETE", `/${id}`);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      detail: "Your role in the organization does not permit this action",
      code: "role_not_permitted",
    });
    expect((await call("GET", "?organizationId=acme")).status).toBe(200);
    expect(memberships).toHaveBeenCalledTimes(3);
    // A host whose memberships lookup fails: a 500 that says nothing, the cause to onError.
    memberships.mockImplementation(() => {
      throw new Error("directory down");
    });
    const failed = await call("GET", "?organizationId=acme");
    expect(failed.status).toBe(500);
  });

  it("records an organization's tier only from a membership that states one", async () => {
    let membership: { id: string; role: string; tier?: string } = {
      id: "acme",
      role: "admin",
      tier: "pro",
    };
    const { keyward, call } = await signedIn(() => [membership]);
    const created = await call("POST", "", { ...fields, organizationId: "acme" });
    expect(created.status).toBe(201);
    const { key, id } = (await created.json()) as { key: string; id: string };
    // A manager whose claims carry no tier: nothing of the organization's plan changes.
    membership = { id: "acme", role: "admin" };
    const second = await call("POST", "", { ...fields, organizationId: "acme" });
    expect(second.status).toBe(201);
    expect((await call("POST", `/${id}/rotate`)).status).toBe(200);
    expect((await call("GET", "?organizationId=acme")).status).toBe(200);
    const verified = await keyward.verify(`Bearer ${(await second.json()).key}`, {
      route: "GET /x",
    });
    expect(verified.ok && verified.principal.tier).toBe("pro");
    expect((await keyward.verify(`Bearer ${key}`, { route: "GET /x" })).ok).toBe(false); // rotated
    // The recorded tier, set by the billing system, is what caps such a manager's keys.
    await keyward.keys.setAccountTier(acme, "free");
    const above = await call("POST", "", { ...fields, organizationId: "acme" });
    expect(above.status).toBe(403);
    expect(((await above.json()) as { code: string }).code).toBe("tier_not_allowed");
    // A membership that states a tier records it.
    membership = { id: "acme", role: "admin", tier: "pro" };
    expect((await call("POST", "", { ...fields, organizationId: "acme" })).status).toBe(201);
  });

  it("configured roles replace the defaults", async () => {
    const keyward = createKeyward({
      store: memoryStore(),
      scopes,
      tiers,
      jwt: { secret: "organization-test-secret-of-at-least-32-bytes" },
      features: [
        organizations({
          memberships: () => [{ id: "acme", role: "billing", tier: "pro" }],
          roles: { manage: ["billing"], read: ["billing"] },
        }),
      ],
      logger: false,
    });
    const { SignJWT } = await import("jose");
    const token = await new SignJWT({ sub: "carol", tier: "free" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(new TextEncoder().encode("organization-test-secret-of-at-least-32-bytes"));
    const response = await keyward.handle(
      new Request("http://host.test/api/v1/api-keys", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ ...fields, organizationId: "acme" }),
      }),
    );
    expect(response.status).toBe(201);
  });
});

describe("an organization's keys and the owner layers", () => {
  it("share one owner allowance across members' keys, apart from a user with the same id", async () => {
    const keyward = createKeyward({
      store: memoryStore(),
      scopes,
      tiers: {
        free: {
          rateLimit: { limit: 100, window: "1m" },
          ownerRateLimit: { limit: 3, window: "1m" },
        },
      },
      clock: manualClock(Date.parse("2026-05-01T00:00:00Z")),
      logger: false,
    });
    const made = (owner: { type: "user" | "organization"; id: string }, createdBy: string) =>
      keyward.keys.create({
        owner,
        createdBy,
        accountTier: "free",
        name: "k",
        scopes: ["profile:read"],
        tier: "free",
      });
    const bobs = await made(acme, "bob");
    const carols = await made(acme, "carol");
    const theUserAcme = await made({ type: "user", id: "acme" }, "acme");
    const statuses = [];
    for (const key of [bobs, carols, bobs, carols]) {
      const result = await keyward.verify(`Bearer ${key.key}`, { route: "GET /x" });
      statuses.push(result.ok ? 200 : result.error.status);
    }
    // Three requests for the organization, whichever member made the key; the fourth is refused.
    expect(statuses).toEqual([200, 200, 200, 429]);
    // The user "acme" has an allowance of their own.
    const own = await keyward.verify(`Bearer ${theUserAcme.key}`, { route: "GET /x" });
    expect(own.ok).toBe(true);
  });
});
