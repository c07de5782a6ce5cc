import { describe, expect, it } from "vitest";
import { mintJwt, newSlug, type Reply, type SuiteClient } from "./client.js";
import { DEMO_WINDOW_SECONDS } from "./demo-contract.js";
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
  const contract = client.contract;
  const limitOf = (name: string) => contract.tiers.find((tier) => tier.name === name)!.limit;
  describe("rate limits", () => {
    it.each(contract.tiers.map((tier) => tier.name))(
      "every authenticated key-management response counts against a %s user's allowance",
      async (tier) => {
        await awayFromWindowEdge();
        const user = await client.newUser(tier);
        const created = await client.createKey(user.token, {
          name: "limited",
          scopes: [contract.readScope],
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
        const limit = limitOf(tier);
        // A tier allowing fewer requests than this sequence makes refuses the rest, which shows
        // just as well that each one counted.
        const expected = [201, 200, 200, 200, 200, 200, 410, 404, 422];
        expect(replies.map((reply) => reply.status)).toEqual(
          expected.map((status, index) => (index < limit ? status : 429)),
        );
        expectCountdown(replies.slice(0, limit), limit, limit - 1);
        for (const refused of replies.slice(limit)) expectRateLimited(refused, limit);
      },
      slowTimeout,
    );

    it("a JWT without a tier claim is limited at the lowest tier", async () => {
      const user = await client.newUser(null);
      expectRateLimitHeaders(await client.listKeys(user.token), contract.lowestTier.limit);
    });

    it.each(contract.tiers.map((tier) => tier.name))(
      "host routes report a %s key's allowance, per key",
      async (tier) => {
        await awayFromWindowEdge();
        const user = await client.newUser(contract.highestTier.name);
        const key = await client.createKeyFor(user, {
          scopes: [contract.readScope, contract.writeScope],
          tier,
        });
        const limit = limitOf(tier);
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
      const user = await client.newUser(contract.secondTier.name);
      const replies = [
        await client.getProfile(user.token, newSlug()),
        await client.putProfile(user.token, newSlug()),
      ];
      for (const reply of replies) expectStatus(reply, 200);
      expectCountdown(replies, contract.secondTier.limit, contract.secondTier.limit - 1);
    });

    it(
      `a ${contract.lowestTier.name} key is admitted ${contract.lowestTier.limit} times on host routes, then refused with 429`,
      async () => {
        const user = await client.newUser();
        const key = await client.createKeyFor(user, {
          scopes: [contract.readScope, contract.writeScope],
        });
        await awayFromWindowEdge();
        const admitted = [];
        for (let i = 0; i < contract.lowestTier.limit; i += 1)
          admitted.push(await client.getProfile(key.key, newSlug()));
        for (const reply of admitted) expectStatus(reply, 200);
        expectCountdown(admitted, contract.lowestTier.limit, contract.lowestTier.limit - 1);

        expectRateLimited(await client.getProfile(key.key, newSlug()), contract.lowestTier.limit);
        // The allowance belongs to the key, not to one route.
        expectRateLimited(await client.putProfile(key.key, newSlug()), contract.lowestTier.limit);
      },
      slowTimeout,
    );

    it(
      "requests refused for a missing scope spend the key's allowance like any other",
      async () => {
        const user = await client.newUser();
        const key = await client.createKeyFor(user, { scopes: [contract.readScope] });
        await awayFromWindowEdge();
        const refused = [];
        for (let i = 0; i < contract.lowestTier.limit; i += 1)
          refused.push(await client.putProfile(key.key, newSlug()));
        for (const reply of refused) expectStatus(reply, 403);
        expectCountdown(refused, contract.lowestTier.limit, contract.lowestTier.limit - 1);
        expectRateLimited(await client.putProfile(key.key, newSlug()), contract.lowestTier.limit);
        expectRateLimited(await client.getProfile(key.key, newSlug()), contract.lowestTier.limit);
      },
      slowTimeout,
    );

    it(
      `a ${contract.lowestTier.name} JWT user is limited per user at ${contract.lowestTier.limit}, key-management calls included`,
      async () => {
        await awayFromWindowEdge();
        const user = await client.newUser();
        const replies = [];
        // Key-management and host-route calls alternate, so both draw on one allowance.
        for (let i = 0; i < contract.lowestTier.limit; i += 1) {
          replies.push(
            i % 2 === 0
              ? await client.listKeys(user.token)
              : await client.getProfile(user.token, newSlug()),
          );
        }
        for (const reply of replies) expectStatus(reply, 200);
        expectCountdown(replies, contract.lowestTier.limit, contract.lowestTier.limit - 1);

        expectRateLimited(await client.listKeys(user.token), contract.lowestTier.limit);
        expectRateLimited(
          await client.getProfile(user.token, newSlug()),
          contract.lowestTier.limit,
        );
        // Per user, not per token: a fresh token for the same user is refused too.
        const sameUser = await mintJwt(options.jwtSecret, {
          sub: user.id,
          tier: contract.lowestTier.name,
        });
        expectRateLimited(await client.listKeys(sameUser), contract.lowestTier.limit);
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
        const first = await client.createKeyFor(user, { scopes: [contract.readScope] });
        const second = await client.createKeyFor(user, { scopes: [contract.readScope] });
        for (let i = 0; i < contract.lowestTier.limit; i += 1)
          expectStatus(await client.getProfile(first.key, newSlug()), 200);
        expectRateLimited(await client.getProfile(first.key, newSlug()), contract.lowestTier.limit);

        const other = await client.getProfile(second.key, newSlug());
        expectStatus(other, 200);
        expect(expectRateLimitHeaders(other, contract.lowestTier.limit).remaining).toBe(
          contract.lowestTier.limit - 1,
        );
        // The user's own allowance has spent only the two creations.
        const listed = await client.listKeys(user.token);
        expectStatus(listed, 200);
        expect(expectRateLimitHeaders(listed, contract.lowestTier.limit).remaining).toBe(
          contract.lowestTier.limit - 3,
        );
      },
      slowTimeout,
    );
  });
}
