/**
 * Mistakes in how `verify` is called or configured, each logged once (`warnOnce`), never on the
 * path of a correct call.
 */
import type { KeywardContext } from "../keyward/context.js";

export interface VerifyWarnings {
  /** An API key verified without `route`: its usage goes under "ANY *". */
  noRoute(): void;
  /** A route requires scopes that are not configured, so no key can call it. */
  unknownScopes(missing: readonly string[]): void;
  /** A session claims a tier that is not configured; `tier` is the one it is treated as. */
  unknownTier(claimed: unknown, tier: string): void;
}

export function verifyWarnings(
  ctx: Pick<KeywardContext, "warnOnce" | "scopes" | "tiers">,
): VerifyWarnings {
  return {
    noRoute: () =>
      ctx.warnOnce(
        "no-route",
        () =>
          'verify() was called without `route` for an API key, so its usage is recorded under "ANY *". Pass the route template, e.g. { route: "GET /profiles/:slug" }.',
      ),
    unknownScopes(missing) {
      const unknown = missing.filter((scope) => !ctx.scopes.has(scope));
      if (unknown.length === 0) return;
      ctx.warnOnce(
        `scope:${unknown.join(",")}`,
        () =>
          `a route requires ${unknown.map((scope) => JSON.stringify(scope)).join(", ")}, which is not a configured scope, so no API key can call it. Configured scopes: ${ctx.scopes.names.join(", ")}.`,
      );
    },
    unknownTier(claimed, tier) {
      if (claimed === undefined || claimed === null) return; // no tier claim: the lowest, as documented
      ctx.warnOnce(
        `tier:${String(claimed).slice(0, 64)}`,
        () =>
          `a session's account tier ${JSON.stringify(claimed)} is not a configured tier (${ctx.tiers.names.join(", ")}), so the account is treated as the lowest, "${tier}". Configure that tier, or map claims to tiers with \`accountTier(claims)\`.`,
      );
    },
  };
}
