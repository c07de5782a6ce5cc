import { describe, expect, it } from "vitest";
import type { ErrorBody, SuiteClient, TestUser } from "./client.js";
import { expectJson } from "./expectations.js";

/**
 * Organization roles that cap the scopes they grant (docs/permissions.md), against
 * the demo contract v0.3's roles: a `developer` may manage an organization's keys but grant only
 * the read and write scopes; an `admin` grants any.
 */
export function roleGrantsSuite(client: SuiteClient): void {
  const { contract } = client;
  const lowest = contract.lowestTier.name;
  const otherScope = contract.scopes.find(
    (scope) => scope !== contract.readScope && scope !== contract.writeScope,
  );

  const organizationOf = async () => {
    const organizationId = `org_${crypto.randomUUID()}`;
    const member = (role: string): Promise<TestUser> =>
      client.newUser(contract.highestTier.name, {
        orgs: [{ id: organizationId, role, tier: lowest }],
      });
    return { organizationId, admin: await member("admin"), developer: await member("developer") };
  };
  const createFor = (user: TestUser, organizationId: string, scopes: string[]) =>
    client.createKey(user.token, { name: "team", scopes, tier: lowest, organizationId });
  const expectNotGrantable = (reply: { status: number; body: unknown }) => {
    expect(reply.status).toBe(403);
    expect((reply.body as ErrorBody).code).toBe("scope_not_grantable");
  };

  describe("organization roles capping the scopes they grant", () => {
    it("a capped role creates keys within its grants, and gets 403 scope_not_grantable beyond them", async () => {
      const { organizationId, admin, developer } = await organizationOf();
      expectJson(await createFor(developer, organizationId, [contract.readScope]), 201);
      if (otherScope === undefined) return;
      expectNotGrantable(
        await createFor(developer, organizationId, [contract.readScope, otherScope]),
      );
      // Nothing was created by the refusal; an uncapped role grants it.
      const listed = await client.send<{ data: { scopes: string[] }[] }>(
        "GET",
        `${client.basePath}?organizationId=${encodeURIComponent(organizationId)}`,
        { token: admin.token },
      );
      expect(listed.body.data.map((key) => key.scopes)).toEqual([[contract.readScope]]);
      expectJson(await createFor(admin, organizationId, [otherScope]), 201);
    });

    it("a capped role may not change or rotate a key holding a scope beyond its grants, but may narrow it to them", async () => {
      if (otherScope === undefined) return;
      const { organizationId, admin, developer } = await organizationOf();
      const broad = await createFor(admin, organizationId, [contract.readScope, otherScope]);
      expectJson(broad, 201);
      expectNotGrantable(
        await client.updateKey(developer.token, broad.body.id, { name: "renamed" }),
      );
      expectNotGrantable(await client.rotateKey(developer.token, broad.body.id));
      const narrowed = await client.updateKey(developer.token, broad.body.id, {
        scopes: [contract.readScope],
      });
      expectJson(narrowed, 200);
      expect(narrowed.body.name).toBe("team");
      expectJson(await client.rotateKey(developer.token, broad.body.id), 200);
    });
  });
}
