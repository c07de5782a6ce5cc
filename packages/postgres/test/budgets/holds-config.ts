/** What the killed-host test's instances share: scopes, tier, the budget and the holds' TTL. */
export const holdsConfig = {
  scopes: { "completions:write": "Write completions" },
  tiers: { free: { rateLimit: { limit: 1_000_000, window: "1m" } } },
  requiredScopes: ["completions:write"],
  route: "POST /api/v1/completions",
  budgets: {
    perKey: { limit: 100_000, period: "month" as const },
    // Short, so the test waits for the TTL on the system clock rather than moving a clock the
    // killed process could not share.
    holdTtl: "2s",
  },
};
