import { describe, expect, it } from "vitest";
import { newSlug, type SuiteClient } from "./client.js";
import { expectErrorDetail, expectJson } from "./expectations.js";
import type { SuiteContract } from "./suite-contract.js";

interface ScopeCase {
  scopes: readonly string[];
  method: "GET" | "PUT";
}

/** Keys that lack the scope a method needs; the unrelated-scopes cases need some configured. */
function lackingScope(contract: SuiteContract): ScopeCase[] {
  const unrelated = contract.unrelatedScopes;
  return [
    { scopes: [contract.readScope], method: "PUT" },
    { scopes: [contract.writeScope], method: "GET" },
    ...(unrelated.length === 0
      ? []
      : [
          { scopes: unrelated, method: "GET" as const },
          { scopes: unrelated, method: "PUT" as const },
        ]),
  ];
}

/**
 * The host's own route, guarded by Keyward (by default the demo's: `GET /api/v1/profiles/:slug`
 * needs `profile:read`, `PUT` needs `profile:write`); a JWT acts as its user with every scope.
 */
export function hostRoutesSuite(client: SuiteClient): void {
  const contract = client.contract;
  describe("host routes", () => {
    it.each([contract.lowestTier.name, null] as const)(
      "a JWT (tier %s) may GET and PUT as its user",
      async (tier) => {
        const user = await client.newUser(tier);
        const slug = newSlug();
        const read = await client.getProfile(user.token, slug);
        expectJson(read, 200);
        expect(read.body).toEqual({ slug, viewer: user.id });
        const write = await client.putProfile(user.token, slug);
        expectJson(write, 200);
        expect(write.body).toEqual({ slug, updatedBy: user.id });
      },
    );

    it(`a key with ${contract.readScope} may GET, acting as its owner`, async () => {
      const owner = await client.newUser();
      const key = await client.createKeyFor(owner, { scopes: [contract.readScope] });
      const reply = await client.getProfile(key.key, "alice-1");
      expectJson(reply, 200);
      expect(reply.body).toEqual({ slug: "alice-1", viewer: owner.id });
    });

    it(`a key with ${contract.writeScope} may PUT, acting as its owner`, async () => {
      const owner = await client.newUser();
      const key = await client.createKeyFor(owner, { scopes: [contract.writeScope] });
      const slug = newSlug();
      const reply = await client.putProfile(key.key, slug);
      expectJson(reply, 200);
      expect(reply.body).toEqual({ slug, updatedBy: owner.id });
    });

    it.each(lackingScope(contract))(
      "403 for a key with $scopes on $method",
      async ({ scopes, method }) => {
        const owner = await client.newUser();
        const key = await client.createKeyFor(owner, { scopes });
        const slug = newSlug();
        const reply =
          method === "GET"
            ? await client.getProfile(key.key, slug)
            : await client.putProfile(key.key, slug);
        expectErrorDetail(reply, 403);
      },
    );

    it("a key keeps working after its owner's other key is revoked", async () => {
      const owner = await client.newUser();
      const kept = await client.createKeyFor(owner, { scopes: [contract.readScope] });
      const dropped = await client.createKeyFor(owner, { scopes: [contract.readScope] });
      expectJson(await client.revokeKey(owner.token, dropped.id), 200);
      expectErrorDetail(await client.getProfile(dropped.key, newSlug()), 401);
      expectJson(await client.getProfile(kept.key, newSlug()), 200);
    });
  });
}
