import { internalError, KeywardError } from "../errors/keyward-error.js";
import type { KeywardContext } from "../keyward/context.js";
import { type RateLimitHeaderOptions, rateLimitHeaders } from "../rate-limit/headers.js";
import type { RateLimitDecision } from "../rate-limit/types.js";
import type { UsageHit } from "../storage/rate-limit-store.js";
import { readBearer } from "./bearer.js";
import type { JwtClaims } from "./jwt.js";
import type { Principal, VerifyOptions, VerifyResult } from "./principal.js";

const noHeaders: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * The hot path. From a raw `Authorization` value to a decision, in this order, each step cheaper
 * than the next and none reached if an earlier one fails:
 * bearer parsing → (API key) shape and checksum → hash → lookup → revoked / expired → scopes →
 * rate limit → usage; or (anything else) JWT → rate limit per user.
 * It never throws: failures come back as `{ ok: false, error }`.
 */
export function createVerify(ctx: KeywardContext) {
  const headerOptions = (tier: string, now: number): RateLimitHeaderOptions =>
    ctx.ietfRateLimitHeaders ? { ietf: true, now, policyName: tier } : {};

  const limited = async (
    bucket: string,
    tier: string,
    principal: Principal,
    now: number,
    usage?: UsageHit,
  ): Promise<VerifyResult> => {
    const policy = ctx.tiers.policy(tier);
    const decision: RateLimitDecision = await ctx.rateLimits.consume(bucket, policy, now, usage);
    const headers = rateLimitHeaders(decision, policy, headerOptions(tier, now));
    if (!decision.allowed) {
      const error = new KeywardError("rate_limited", "Rate limit exceeded", { headers });
      return { ok: false, error, rateLimit: decision, headers };
    }
    return { ok: true, principal, rateLimit: decision, headers };
  };

  const verifyApiKey = async (token: string, options: VerifyOptions): Promise<VerifyResult> => {
    if (!ctx.format.parse(token)) return failure("invalid_api_key", "Invalid API key");
    const key = await ctx.keys.findByHash(ctx.hasher.hash(token));
    if (!key) return failure("invalid_api_key", "Invalid API key");
    const now = ctx.clock.now();
    if (key.revokedAt !== null) return failure("invalid_api_key", "API key has been revoked");
    if (key.expiresAt !== null && key.expiresAt <= now) {
      return failure("invalid_api_key", "API key has expired");
    }
    // Every request made with a valid key counts, refused or not: usage is what the key was used for.
    const [method, route] = splitRoute(options.route);
    if (options.scopes && options.scopes.length > 0) {
      const missing = ctx.scopes.missing(key.scopes, options.scopes);
      if (missing.length > 0) {
        ctx.usageRecorder.record(key.id, method, route, now);
        return failure(
          "insufficient_scope",
          `API key lacks the required scope: ${missing.join(", ")}`,
        );
      }
    }
    let usage: UsageHit | undefined;
    if (ctx.rateLimits.recordsUsage)
      usage = { keyId: key.id, method, route, day: ctx.usageRecorder.dayOf(now) };
    else ctx.usageRecorder.record(key.id, method, route, now);
    const principal: Principal = {
      kind: "key",
      userId: key.ownerId,
      keyId: key.id,
      name: key.name,
      scopes: key.scopes,
      tier: key.tier,
    };
    return limited(`key:${key.id}`, key.tier, principal, now, usage);
  };

  const verifyJwt = async (token: string): Promise<VerifyResult> => {
    const claims: JwtClaims = await ctx.verifyJwt(token);
    const tier = ctx.tiers.resolveAccountTier(ctx.accountTier(claims));
    const principal: Principal = { kind: "user", userId: claims.sub, tier, claims };
    return limited(`user:${claims.sub}`, tier, principal, ctx.clock.now());
  };

  /**
   * @param authorization the raw `Authorization` header value
   * @param options.apiKeys `false` on endpoints that only a user session may call
   */
  return async function verify(
    authorization: string | null | undefined,
    options: VerifyOptions & { apiKeys?: boolean } = {},
  ): Promise<VerifyResult> {
    const token = readBearer(authorization);
    if (token === null) return failure("missing_credentials", "Not authenticated");
    try {
      if (ctx.format.isKeyShaped(token)) {
        if (options.apiKeys === false) {
          return failure(
            "api_key_not_allowed",
            "API keys cannot be used here; use a user session token",
          );
        }
        return await verifyApiKey(token, options);
      }
      return await verifyJwt(token);
    } catch (error) {
      const wrapped = error instanceof KeywardError ? error : internalError(error);
      return { ok: false, error: wrapped, headers: noHeaders };
    }
  };
}

function failure(
  code: ConstructorParameters<typeof KeywardError>[0],
  detail: string,
): VerifyResult {
  return { ok: false, error: new KeywardError(code, detail), headers: noHeaders };
}

/** `"GET /profiles/:slug"` → `["GET", "/profiles/:slug"]`; a bare path gets method `"ANY"`. */
export function splitRoute(route: string | undefined): [method: string, route: string] {
  if (!route) return ["ANY", "*"];
  const space = route.indexOf(" ");
  if (space === -1) return ["ANY", route];
  return [route.slice(0, space).toUpperCase(), route.slice(space + 1).trim()];
}
