import type { KeywardStore, RateLimitAlgorithmName } from "@keyward/core";
import { describe, expect, it } from "vitest";
import { uniqueId } from "./fixtures.js";
import { openStores } from "./open-stores.js";
import type { StorageSuiteOptions } from "./options.js";

const algorithms: RateLimitAlgorithmName[] = [
  "fixed-window",
  "sliding-window",
  "token-bucket",
  "gcra",
];

/**
 * Rate-limit stores are checked on real time, because a store may take time from its own server
 * (Redis `TIME`) rather than from the `now` it is given. Windows are long where a test must not
 * cross one, and short where it must.
 */
export function rateLimitStoreSuite<S extends KeywardStore>(options: StorageSuiteOptions<S>): void {
  describe("RateLimitStore", () => {
    const open = openStores(options);

    for (const algorithm of algorithms) {
      describe(algorithm, () => {
        it("admits exactly the limit when many requests arrive at once", async () => {
          const { rateLimits } = await open();
          const policy = { algorithm, limit: 10, windowMs: 60_000 };
          const key = uniqueId("rl");
          const decisions = await Promise.all(
            Array.from({ length: 25 }, () => rateLimits.consume(key, policy, Date.now())),
          );
          expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
          for (const decision of decisions) {
            expect(decision.limit).toBe(10);
            expect(decision.remaining).toBeGreaterThanOrEqual(0);
            expect(decision.reset).toBeGreaterThan(Date.now() - 1_000);
            if (!decision.allowed) expect(decision.retryAfter).toBeGreaterThan(0);
          }
          expect(
            [...decisions.filter((d) => d.allowed).map((d) => d.remaining)].sort((a, b) => a - b),
          ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        });

        it("answers at once (consumeNow) exactly as through promises, on one shared state", async (context) => {
          const { rateLimits } = await open();
          const consumeNow = rateLimits.consumeNow;
          // Only a store whose state lives in this process has the shortcut.
          if (!consumeNow) return context.skip();
          const policy = { algorithm, limit: 6, windowMs: 60_000 };
          const key = uniqueId("rl");
          const now = Date.now();
          const admitted: boolean[] = [];
          for (let i = 0; i < 5; i++) {
            admitted.push(consumeNow.call(rateLimits, key, policy, now).allowed);
            admitted.push((await rateLimits.consume(key, policy, now)).allowed);
          }
          expect(admitted).toEqual([
            true,
            true,
            true,
            true,
            true,
            true,
            false,
            false,
            false,
            false,
          ]);
        });

        it("keeps keys apart", async () => {
          const { rateLimits } = await open();
          const policy = { algorithm, limit: 2, windowMs: 60_000 };
          const [a, b] = [uniqueId("rl"), uniqueId("rl")];
          for (let i = 0; i < 2; i++)
            expect((await rateLimits.consume(a, policy, Date.now())).allowed).toBe(true);
          expect((await rateLimits.consume(a, policy, Date.now())).allowed).toBe(false);
          expect((await rateLimits.consume(b, policy, Date.now())).allowed).toBe(true);
        });

        it("admits again once the window has passed", async () => {
          const { rateLimits } = await open();
          const policy = { algorithm, limit: 2, windowMs: 300 };
          const key = uniqueId("rl");
          // Windows start on multiples of their length (on the store's clock, this host's here).
          // Start the three calls early in one, so they cannot straddle a boundary: the third
          // would then open the next window and be admitted (a CI run once caught exactly that).
          const intoWindow = Date.now() % policy.windowMs;
          if (intoWindow > policy.windowMs / 4) {
            await new Promise((resolve) => setTimeout(resolve, policy.windowMs - intoWindow + 5));
          }
          await rateLimits.consume(key, policy, Date.now());
          await rateLimits.consume(key, policy, Date.now());
          const refused = await rateLimits.consume(key, policy, Date.now());
          expect(refused.allowed).toBe(false);
          // The sliding window can need up to two windows to forget a full previous one.
          await new Promise((resolve) => setTimeout(resolve, 2 * policy.windowMs + 50));
          expect((await rateLimits.consume(key, policy, Date.now())).allowed).toBe(true);
        });
      });
    }
  });
}
