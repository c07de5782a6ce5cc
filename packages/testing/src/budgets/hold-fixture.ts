/**
 * What the adapters' hold tests (`requireHold`, `withHold`) share: a Keyward with budgets on the
 * memory store and a manual clock, one key allowed `completions:write` with 1,000 credits, and
 * a reader of its credits left. Each adapter serves its own route with it.
 */
import { createKeyward, type Keyward, manualClock, memoryStore } from "@keyward/core";
import { type BudgetsApi, budgets } from "@keyward/core/budgets";

export interface HoldFixture {
  keyward: Keyward & { budgets: BudgetsApi };
  /** The key's full secret, for an `Authorization: Bearer` header. */
  key: string;
  /** The key's credits left (1,000 before any hold). */
  credits(): Promise<number | undefined>;
}

export async function holdFixture(): Promise<HoldFixture> {
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "completions:write": "Write completions" },
    tiers: { free: { rateLimit: { limit: 1000, window: "1m" } } },
    clock: manualClock(Date.parse("2026-12-07T12:00:00Z")),
    jwt: false,
    logger: false,
    features: [budgets({ sweepInterval: false })],
  });
  const created = await keyward.keys.create({
    ownerId: "alice",
    accountTier: "free",
    name: "agent",
    scopes: ["completions:write"],
    tier: "free",
  });
  await keyward.keys.setLimits(created.id, { credits: { remaining: 1000 } });
  return {
    keyward,
    key: created.key,
    credits: async () => (await keyward.keys.usage("alice", created.id)).credits?.remaining,
  };
}
