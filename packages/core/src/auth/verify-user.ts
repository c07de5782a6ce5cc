/**
 * A user, from a verified JWT or the host's session (anything `verify` is given that is not an API
 * key): limited per user at the account tier, and the tier the session claims recorded on the
 * user's keys.
 */
import { userOwner } from "../keys/owner.js";
import type { KeywardContext } from "../keyward/context.js";
import { bucketFor } from "../rate-limit/bucket.js";
import { rateLimitHeaders } from "../rate-limit/headers.js";
import type { JwtClaims } from "./jwt.js";
import type { Principal, SessionUser, VerifyResult } from "./principal.js";
import { failure, rateLimited } from "./verify-refusals.js";
import type { VerifyWarnings } from "./verify-warnings.js";

export type SessionResolution =
  | SessionUser
  | null
  | undefined
  | Promise<SessionUser | null | undefined>;

export interface UserVerification {
  /** @param managing a key-management call: the tier is recorded before the call goes on */
  jwt(token: string, managing: boolean): Promise<VerifyResult>;
  session(resolve: () => SessionResolution, managing: boolean): Promise<VerifyResult>;
}

export function userVerification(
  ctx: Pick<
    KeywardContext,
    | "tiers"
    | "clock"
    | "rateLimits"
    | "accountTiers"
    | "accountTier"
    | "verifyJwt"
    | "ietfRateLimitHeaders"
  >,
  warnings: VerifyWarnings,
  toFailure: (error: unknown) => VerifyResult,
): UserVerification {
  const admitUser = async (
    claims: JwtClaims,
    claimed: unknown,
    managing: boolean,
  ): Promise<VerifyResult> => {
    const tier = ctx.tiers.resolveAccountTier(claimed);
    if (claimed !== tier) warnings.unknownTier(claimed, tier);
    const now = ctx.clock.now();
    const policy = ctx.tiers.policy(tier);
    const decision = await ctx.rateLimits.consume(bucketFor.user(claims.sub), policy, now);
    const headers = rateLimitHeaders(decision, policy, {
      now,
      ietf: ctx.ietfRateLimitHeaders,
      policyName: tier,
    });
    if (!decision.allowed) return rateLimited(decision, headers);
    // A session says what the account's tier is now, and its keys follow: at once before key
    // management (a downgraded account cannot act on its old tier), in the background elsewhere.
    const owner = userOwner(claims.sub);
    if (managing) await ctx.accountTiers.record(owner, tier);
    else ctx.accountTiers.notice(owner, tier);
    const principal: Principal = { kind: "user", userId: claims.sub, tier, claims };
    return { ok: true, principal, rateLimit: decision, headers };
  };

  return {
    async jwt(token, managing) {
      try {
        const claims = await ctx.verifyJwt(token);
        return await admitUser(claims, ctx.accountTier(claims), managing);
      } catch (error) {
        return toFailure(error);
      }
    },
    async session(resolve, managing) {
      try {
        const user = await resolve();
        if (user === null || user === undefined) {
          return failure("missing_credentials", "Not authenticated");
        }
        const claims = sessionClaims(user);
        const claimed = user.tier !== undefined ? user.tier : ctx.accountTier(claims);
        return await admitUser(claims, claimed, managing);
      } catch (error) {
        return toFailure(error);
      }
    },
  };
}

/** The claims a session stands for: the host's, with `sub` set to the user id. */
function sessionClaims(user: SessionUser): JwtClaims {
  if (typeof user !== "object" || typeof user.userId !== "string" || user.userId === "") {
    throw new TypeError("Keyward: `session` must resolve to { userId: string, ... } or null");
  }
  return { ...user.claims, sub: user.userId };
}
