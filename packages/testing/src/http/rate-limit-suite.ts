import { describe, expect, it } from "vitest";
import { mintJwt, newSlug, type Reply, type SuiteClient } from "./client.js";
import { DEMO_TIER_LIMITS, DEMO_WINDOW_SECONDS, type DemoTier } from "./demo-contract.js";
import { expectRateLimited, expectRateLimitHeaders, expectStatus, sleep } from "./expectations.js";
import type { HttpSuiteOptions } from "./options.js";

/**
 * Waits out the last seconds of a wall-clock minute. Window-based algorithms align their windows to
 * the clock; a burst that straddles a boundary sees the count carried over in part (sliding window)
 * or reset (fixed window), which would make exact counts depend on when the suite happens to run.
 */
async function awayFromWindowEdge(): Promise<void> {
  const windowMs = DEMO_WINDOW_SECONDS * 1000;
  const into = Date.now() % windowMs;
  if (into > windowMs - 10_000) await sleep(windowMs - into + 100);
}

/** `remaining` of each reply, which must go down by exactly one per request. */
function expectCountdown(replies: Reply[], limit: number, firstRemaining: number): void {
  replies.forEach((reply, index) => {
    const { remaining } = expectRateLimitHeaders(reply, limit);
    expect(remaining, `X-RateLimit-Remaining of request ${index + 1}`).toBe(firstRemaining - index);
  });
}

const slowTimeout = 60_000;

/** Per-key and per-user rate limits at the demo's tier allowances, and the headers that report them. */
export function rateLimitSuite(client: SuiteClient, options: HttpSuiteOptions): void {
  describe("rate limits", () => {
    it.each(["free", "pro", "enterprise"] as DemoTier[])(
      "every authenticated key-management response counts against a %s user's allowance",
      async (tier) => {
        await awayFromWindowEdge();
        const user = await client.newUser(tier);
        const created = await client.createKey(user.token, {
          name: "limited",
          scopes: ["profile:read"],
          tier,
        });
        const key = created.body;
        const replies = [
          created,
          await client.listKeys(user.token),
          await client.listScopes(user.token),
          await client.keyUsage(user.token, key.id),
          await client.rotateKey(user.token, key.id),
          await client.revokeKey(user.token, key.id),
          // Authenticated calls that fail count too.
          await client.revokeKey(user.token, key.id),
          await client.keyUsage(user.token, "no-such-key"),
          await client.createKey(user.token, { name: "" }),
        ];
        expect(replies.map((reply) => reply.status)).toEqual([
          201, 200, 200, 200, 200, 200, 410, 404, 422,
        ]);
        const limit = DEMO_TIER_LIMITS[tier];
        expectCountdown(replies, limit, limit - 1);
      },
      slowTimeout,
    );

    it("a JWT without a tier claim is limited at the lowest tier", async () => {
      const user = await client.newUser(null);
      expectRateLimitHeaders(await client.listKeys(user.token), DEMO_TIER_LIMITS.free);
    });

    it.each(["free", "pro", "enterprise"] as DemoTier[])(
      "host routes report a %s key's allowance, per key",
      async (tier) => {
        await awayFromWindowEdge();
        const user = await client.newUser("enterprise");
        const key = await client.createKeyFor(user, {
          scopes: ["profile:read", "profile:write"],
          tier,
        });
        const limit = DEMO_TIER_LIMITS[tier];
        const replies = [
          await client.getProfile(key.key, newSlug()),
          await client.putProfile(key.key, newSlug()),
          await client.getProfile(key.key, newSlug()),
        ];
        for (const reply of replies) expectStatus(reply, 200);
        expectCountdown(replies, limit, limit - 1);
      },
      slowTimeout,
    );

    it("host routes report a JWT user's allowance at the account tier", async () => {
      await awayFromWindowEdge();
      const user = await client.newUser("pro");
      const replies = [
        await client.getProfile(user.token, newSlug()),
        await client.putProfile(user.token, newSlug()),
      ];
      for (const reply of replies) expectStatus(reply, 200);
      expectCountdown(replies, DEMO_TIER_LIMITS.pro, DEMO_TIER_LIMITS.pro - 1);
    });

    it(
      "a free key is admitted 60 times on host routes, then refused with 429",
      async () => {
        const user = await client.newUser();
        const key = await client.createKeyFor(user, { scopes: ["profile:read", "profile:write"] });
        await awayFromWindowEdge();
        const admitted = [];
        for (let i = 0; i < DEMO_TIER_LIMITS.free; i += 1)
          admitted.push(await client.getProfile(key.key, newSlug()));
        for (const reply of admitted) expectStatus(reply, 200);
        expectCountdown(admitted, DEMO_TIER_LIMITS.free, DEMO_TIER_LIMITS.free - 1);

        expectRateLimited(await client.getProfile(key.key, newSlug()), DEMO_TIER_LIMITS.free);
        // The allowance belongs to the key, not to one route.
        expectRateLimited(await client.putProfile(key.key, newSlug()), DEMO_TIER_LIMITS.free);
      },
      slowTimeout,
    );

    it(
      "requests refused for a missing scope spend the key's allowance like any other",
      async () => {
        const user = await client.newUser();
        const key = await client.createKeyFor(user, { scopes: ["profile:read"] });
        await awayFromWindowEdge();
        const refused = [];
        for (let i = 0; i < DEMO_TIER_LIMITS.free; i += 1)
          refused.push(await client.putProfile(key.key, newSlug()));
        for (const reply of refused) expectStatus(reply, 403);
        expectCountdown(refused, DEMO_TIER_LIMITS.free, DEMO_TIER_LIMITS.free - 1);
        expectRateLimited(await client.putProfile(key.key, newSlug()), DEMO_TIER_LIMITS.free);
        expectRateLimited(await client.getProfile(key.key, newSlug()), DEMO_TIER_LIMITS.free);
      },
      slowTimeout,
    );

    it(
      "a free JWT user is limited per user at 60, key-management calls included",
      async () => {
        await awayFromWindowEdge();
        const user = await client.newUser();
        const replies = [];
        for (let i = 0; i < DEMO_TIER_LIMITS.free / 2; i += 1) {
          replies.push(await client.listKeys(user.token));
          replies.push(await client.getProfile(user.token, newSlug()));
        }
        for (const reply of replies) expectStatus(reply, 200);
        expectCountdown(replies, DEMO_TIER_LIMITS.free, DEMO_TIER_LIMITS.free - 1);

        expectRateLimited(await client.listKeys(user.token), DEMO_TIER_LIMITS.free);
        expectRateLimited(await client.getProfile(user.token, newSlug()), DEMO_TIER_LIMITS.free);
        // Per user, not per token: a fresh token for the same user is refused too.
        const sameUser = await mintJwt(options.jwtSecret, { sub: user.id, tier: "free" });
        expectRateLimited(await client.listKeys(sameUser), DEMO_TIER_LIMITS.free);
        // Someone else is not.
        expectStatus(await client.listKeys((await client.newUser()).token), 200);
      },
      slowTimeout,
    );

    it(
      "two keys of one user have separate allowances, apart from the user's own",
      async () => {
        await awayFromWindowEdge();
        const user = await client.newUser();
        const first = await client.createKeyFor(user, { scopes: ["profile:read"] });
        const second = await client.createKeyFor(user, { scopes: ["profile:read"] });
        for (let i = 0; i < DEMO_TIER_LIMITS.free; i += 1)
          expectStatus(await client.getProfile(first.key, newSlug()), 200);
        expectRateLimited(await client.getProfile(first.key, newSlug()), DEMO_TIER_LIMITS.free);

        const other = await client.getProfile(second.key, newSlug());
        expectStatus(other, 200);
        expect(expectRateLimitHeaders(other, DEMO_TIER_LIMITS.free).remaining).toBe(
          DEMO_TIER_LIMITS.free - 1,
        );
        // The user's own allowance has spent only the two creations.
        const listed = await client.listKeys(user.token);
        expectStatus(listed, 200);
        expect(expectRateLimitHeaders(listed, DEMO_TIER_LIMITS.free).remaining).toBe(
          DEMO_TIER_LIMITS.free - 3,
        );
      },
      slowTimeout,
    );
  });
}
