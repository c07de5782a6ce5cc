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
          // Windows start on multiples of their length (on the store's clock, this host's here),
          // and a bucket refills one request every windowMs / limit. The three calls must fall in
          // one window and within one refill, or the third is rightly admitted (a CI run once
          // caught exactly that). How long they take is the machine's business: an attempt whose
          // calls were slower proves nothing and is made again on a fresh key, so a slow machine
          // costs attempts, never a wrong verdict.
          const refill = policy.windowMs / policy.limit;
          let key = uniqueId("rl");
          for (let attempt = 1; ; attempt++) {
            const intoWindow = Date.now() % policy.windowMs;
            if (intoWindow > policy.windowMs / 4) {
              await new Promise((resolve) => setTimeout(resolve, policy.windowMs - intoWindow + 5));
            }
            key = uniqueId("rl");
            const first = Date.now();
            await rateLimits.consume(key, policy, first);
            await rateLimits.consume(key, policy, Date.now());
            const refused = await rateLimits.consume(key, policy, Date.now());
            // From before the first call was sent to after the third answered: a store on its
            // own clock decided all three within this span.
            const end = Date.now();
            const decisive =
              end - first < refill &&
              Math.floor(first / policy.windowMs) === Math.floor(end / policy.windowMs);
            if (decisive || attempt === 20) {
              expect(refused.allowed).toBe(false);
              break;
            }
          }
          // The sliding window can need up to two windows to forget a full previous one.
          await new Promise((resolve) => setTimeout(resolve, 2 * policy.windowMs + 50));
          expect((await rateLimits.consume(key, policy, Date.now())).allowed).toBe(true);
        });
      });
    }
  });
}
