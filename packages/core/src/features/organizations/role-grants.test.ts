import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import { lifecycle } from "../lifecycle/index.js";
import { organizations } from "./index.js";
import type { OrganizationsConfig } from "./membership.js";

const scopes = { "profile:read": "Read", "profile:write": "Write", "org:write": "Admin" };
const tiers = { free: { rateLimit: { limit: 1000, window: "1m" } } };
const jwtSecret = "role-grants-test-secret-of-at-least-32-bytes";
const base = "http://host.test/api/v1/api-keys";

/** acme: alice is its owner (uncapped), bob a developer whose role grants profile scopes only. */
const roles: OrganizationsConfig["roles"] = {
  manage: ["owner", "developer"],
  read: ["owner", "developer"],
  developer: { grants: ["profile:read", "profile:write"] },
};
const memberships: OrganizationsConfig["memberships"] = (claims) => [
  { id: "acme", role: claims.sub === "alice" ? "owner" : "developer", tier: "free" },
];

const setup = () => {
  const keyward = createKeyward({
    store: memoryStore(),
    scopes,
    tiers,
    jwt: { secret: jwtSecret },
    features: [organizations({ memberships, roles }), lifecycle()],
    logger: false,
  });
  const as = (user: string) => async (method: string, path: string, body?: unknown) => {
    const token = await new SignJWT({ tier: "free" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(user)
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(new TextEncoder().encode(jwtSecret));
    const response = await keyward.handle(
      new Request(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { keyward, alice: as("alice"), bob: as("bob") };
};

const teamKey = (keyScopes: string[]) => ({
  name: "team",
  scopes: keyScopes,
  tier: "free",
  organizationId: "acme",
});

describe("organization roles capping the scopes they grant", () => {
  it("lets a capped role create a key within its grants, and refuses one beyond with 403, creating nothing", async () => {
    const { alice, bob } = setup();
    expect((await bob("POST", "", teamKey(["profile:read"]))).status).toBe(201);
    const refused = await bob("POST", "", teamKey(["profile:read", "org:write"]));
    expect(refused).toEqual({
      status: 403,
      body: {
        code: "scope_not_grantable",
        detail:
          "Your role in the organization may not grant org:write; it may grant profile:read, profile:write",
      },
    });
    const listed = await alice("GET", "?organizationId=acme");
    expect((listed.body.data as { scopes: string[] }[]).map((key) => key.scopes)).toEqual([
      ["profile:read"],
    ]);
    // An uncapped role grants anything configured.
    expect((await alice("POST", "", teamKey(["org:write"]))).status).toBe(201);
  });

  it("a 422 for a bad body still comes before the role's 403", async () => {
    const { bob } = setup();
    const reply = await bob("POST", "", { ...teamKey(["org:write"]), tier: "platinum" });
    expect(reply.status).toBe(422);
  });

  it("refuses a capped role changing or rotating a key that holds a scope beyond its grants", async () => {
    const { alice, bob } = setup();
    const broad = await alice("POST", "", teamKey(["profile:read", "org:write"]));
    const id = broad.body.id as string;
    for (const [method, path, body] of [
      ["PATCH", `/${id}`, { name: "renamed" }],
      ["PATCH", `/${id}`, { scopes: ["org:write"] }],
      ["POST", `/${id}/rotate`, undefined],
    ] as const) {
      const refused = await bob(method, path, body);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe("scope_not_grantable");
    }
    // Narrowed to what the role grants, it may: the result holds only grantable scopes.
    const narrowed = await bob("PATCH", `/${id}`, { scopes: ["profile:read"] });
    expect(narrowed.status).toBe(200);
    expect((await bob("POST", `/${id}/rotate`)).status).toBe(200);
    // Nothing else changed on the refusals: the name is the one it was created with.
    expect(narrowed.body.name).toBe("team");
  });

  it("refuses at createKeyward a grant of a scope that is not configured, naming it", () => {
    expect(() =>
      createKeyward({
        store: memoryStore(),
        scopes,
        tiers,
        jwt: { secret: jwtSecret },
        features: [
          organizations({ memberships, roles: { developer: { grants: ["profile:raed"] } } }),
        ],
      }),
    ).toThrow(
      '`organizations.roles.developer.grants` names "profile:raed", not a configured scope',
    );
  });

  it.each([
    [{ developer: { grants: [] } }],
    [{ developer: { grants: "profile:read" } }],
    [{ developer: ["profile:read"] }],
    [{ developer: null }],
    [{ developer: { grants: [""] } }],
  ])("refuses a malformed role cap %j with a TypeError naming the role", (badRoles) => {
    expect(() =>
      organizations({ memberships, roles: badRoles as unknown as OrganizationsConfig["roles"] }),
    ).toThrow(/`organizations.roles.developer` must be \{ grants: \[scope, \.\.\.\] \}/);
  });
});
