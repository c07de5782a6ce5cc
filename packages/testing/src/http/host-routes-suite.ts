import { describe, expect, it } from "vitest";
import { newSlug, type SuiteClient } from "./client.js";
import type { DemoScope } from "./demo-contract.js";
import { expectErrorDetail, expectJson } from "./expectations.js";

interface ScopeCase {
  scopes: DemoScope[];
  method: "GET" | "PUT";
}

const lackingScope: ScopeCase[] = [
  { scopes: ["profile:read"], method: "PUT" },
  { scopes: ["profile:write"], method: "GET" },
  { scopes: ["org:read", "org:write"], method: "GET" },
  { scopes: ["org:read", "org:write"], method: "PUT" },
];

/**
 * The demo host's own routes, guarded by Keyward: `GET /api/v1/profiles/:slug` needs
 * `profile:read`, `PUT` needs `profile:write`; a JWT acts as its user with every scope.
 */
export function hostRoutesSuite(client: SuiteClient): void {
  describe("host routes", () => {
    it.each(["free", null] as const)(
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

    it("a key with profile:read may GET, acting as its owner", async () => {
      const owner = await client.newUser();
      const key = await client.createKeyFor(owner, { scopes: ["profile:read"] });
      const reply = await client.getProfile(key.key, "alice-1");
      expectJson(reply, 200);
      expect(reply.body).toEqual({ slug: "alice-1", viewer: owner.id });
    });

    it("a key with profile:write may PUT, acting as its owner", async () => {
      const owner = await client.newUser();
      const key = await client.createKeyFor(owner, { scopes: ["profile:write"] });
      const slug = newSlug();
      const reply = await client.putProfile(key.key, slug);
      expectJson(reply, 200);
      expect(reply.body).toEqual({ slug, updatedBy: owner.id });
    });

    it.each(lackingScope)("403 for a key with $scopes on $method", async ({ scopes, method }) => {
      const owner = await client.newUser();
      const key = await client.createKeyFor(owner, { scopes });
      const slug = newSlug();
      const reply =
        method === "GET"
          ? await client.getProfile(key.key, slug)
          : await client.putProfile(key.key, slug);
      expectErrorDetail(reply, 403);
    });

    it("a key keeps working after its owner's other key is revoked", async () => {
      const owner = await client.newUser();
      const kept = await client.createKeyFor(owner, { scopes: ["profile:read"] });
      const dropped = await client.createKeyFor(owner, { scopes: ["profile:read"] });
      expectJson(await client.revokeKey(owner.token, dropped.id), 200);
      expectErrorDetail(await client.getProfile(dropped.key, newSlug()), 401);
      expectJson(await client.getProfile(kept.key, newSlug()), 200);
    });
  });
}
