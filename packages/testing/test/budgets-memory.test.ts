/** The budgets suite every store runs, on the memory store. */
import { createKeyward, memoryStore } from "@keyward/core";
import { memoryHoldStore } from "@keyward/core/budgets";
import { describeBudgets } from "../src/index.js";

describeBudgets({
  name: "memory",
  holds: () => memoryHoldStore(),
  keyward: ({ clock, features }) =>
    createKeyward({
      store: memoryStore(),
      scopes: { "completions:write": "Write completions" },
      tiers: { free: { rateLimit: { limit: 10_000, window: "1m" } } },
      clock,
      jwt: false,
      logger: false,
      features,
    }),
});
