import { describe, expect, it } from "vitest";
import { newUserId, readReply } from "../http/client.js";
import { PROFILE_ROUTE } from "../http/demo-contract.js";
import { expectRateLimited } from "../http/expectations.js";
import type { NodeAdapterFixture } from "./fixture.js";

/**
 * The guard in front of the host's routes: the principal and the rate-limit headers reach the
 * host's handler and response, a refusal never reaches the handler, and usage is recorded under
 * the route template.
 */
export function guardSuite(fixture: NodeAdapterFixture): void {
  const { keyward, createKey } = fixture;

  describe("the guard", () => {
    it("hands the host the principal and puts the rate-limit headers on its response", async () => {
      const owner = newUserId();
      const key = await createKey(owner);
      const reply = await fetch(new URL("/api/v1/profiles/alice", fixture.origin()), {
        headers: { authorization: `Bearer ${key.key}` },
      });
      expect(reply.status).toBe(200);
      expect(await reply.json()).toEqual({ slug: "alice", viewer: owner });
      expect(reply.headers.get("x-ratelimit-limit")).toBe("60");
      expect(reply.headers.get("x-ratelimit-remaining")).toBe("59");
      expect(reply.headers.get("x-ratelimit-reset")).toMatch(/^\d+$/);
    });

    it("answers 403 for a missing scope without reaching the handler", async () => {
      let handled = 0;
      const origin = await fixture.serve(keyward, {
        guard: { scopes: ["profile:write"] },
        onGuarded: () => {
          handled += 1;
        },
      });
      const key = await createKey(newUserId(), ["profile:read"]);
      const reply = await fetch(new URL("/guarded", origin), {
        headers: { authorization: `Bearer ${key.key}` },
      });
      expect(reply.status).toBe(403);
      expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
      expect(Object.keys(await reply.json()).sort()).toEqual(["code", "detail"]);
      expect(handled).toBe(0);
    });

    it("answers 429 with Retry-After and the rate-limit headers once the allowance is spent", async () => {
      const tight = fixture.suiteKeyward({
        tiers: { free: { rateLimit: { limit: 2, window: "1m" } } },
      });
      const key = await tight.keys.create({
        ownerId: newUserId(),
        accountTier: "free",
        name: "tight",
        scopes: ["profile:read"],
        tier: "free",
      });
      let handled = 0;
      const origin = await fixture.serve(tight, {
        guard: { scopes: ["profile:read"] },
        onGuarded: () => {
          handled += 1;
        },
      });
      const call = () =>
        fetch(new URL("/guarded", origin), { headers: { authorization: `Bearer ${key.key}` } });
      expect((await call()).status).toBe(200);
      expect((await call()).headers.get("x-ratelimit-remaining")).toBe("0");
      // 429 with {detail}, Retry-After ≥ 1 s and the X-RateLimit-* headers at 0 remaining.
      expectRateLimited(await readReply(await call()), 2);
      expect(handled).toBe(2);
    });

    it("records usage under the route template, never the raw path", async () => {
      const owner = newUserId();
      const key = await createKey(owner, ["profile:read", "profile:write"]);
      const authorization = `Bearer ${key.key}`;
      for (const slug of ["alice", "bob"]) {
        const reply = await fetch(new URL(`/api/v1/profiles/${slug}`, fixture.origin()), {
          headers: { authorization },
        });
        expect(reply.status).toBe(200);
      }
      const put = await fetch(new URL("/api/v1/profiles/carol", fixture.origin()), {
        method: "PUT",
        headers: { authorization, "content-type": "application/json" },
        body: "{}",
      });
      expect(put.status).toBe(200);
      const usage = await keyward.keys.usage(owner, key.id);
      expect(usage.totalRequests).toBe(3);
      expect(usage.endpoints).toHaveLength(2);
      expect(usage.endpoints).toEqual(
        expect.arrayContaining([
          { method: "GET", route: PROFILE_ROUTE, count: 2 },
          { method: "PUT", route: PROFILE_ROUTE, count: 1 },
        ]),
      );
    });
  });
}
