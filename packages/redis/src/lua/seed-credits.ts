/**
 * Seeds credit states from their durable balance (`durable-credits.ts` in `@keyward/core`), where
 * Redis holds none: a state written meanwhile (another instance seeded it, or spent from it) is
 * left alone. KEYS are one owner's credit keys (one slot), ARGV their states,
 * "<grantedAt>:<balance>:<refilledAt>", or "fresh" where there is no durable balance: a value the
 * consume script reads as no state, so the layer starts from its grant, but no longer as unseeded.
 */
import { luaScript } from "../client/lua-script.js";

export const seedCreditsScript = luaScript(
  "seed-credits",
  `
for i = 1, #KEYS do redis.call('SET', KEYS[i], ARGV[i], 'NX') end
return #KEYS
`,
);

/** The seed for a credits layer without a durable balance. */
export const freshCredits = "fresh";
