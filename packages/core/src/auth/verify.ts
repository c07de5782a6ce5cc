import { internalError, KeywardError } from "../errors/keyward-error.js";
import type { KeywardContext } from "../keyward/context.js";
import { rateLimitHeaders } from "../rate-limit/headers.js";
import type { RateLimitDecision, RateLimitPolicy } from "../rate-limit/types.js";
import type { StoredKey } from "../storage/key-store.js";
import type { UsageHit } from "../storage/rate-limit-store.js";
import { cachedRouteLabelSplitter } from "../usage/route-label.js";
import { readBearer } from "./bearer.js";
import type { Principal, VerifyOptions, VerifyResult } from "./principal.js";

const noHeaders: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * The hot path. From a raw `Authorization` value to a decision, in this order, each step cheaper
 * than the next and none reached if an earlier one fails:
 * bearer parsing → (API key) shape and checksum → hash → lookup → revoked / expired → scopes →
 * rate limit (+ usage); or (anything else) JWT → rate limit per user.
 * It never throws: failures come back as `{ ok: false, error }`.
 */
export function createVerify(ctx: KeywardContext) {
  const splitRoute = cachedRouteLabelSplitter();

  const decide = (
    decision: RateLimitDecision,
    policy: RateLimitPolicy,
    tier: string,
    principal: Principal,
    now: number,
  ): VerifyResult => {
    const headers = ctx.ietfRateLimitHeaders
      ? rateLimitHeaders(decision, policy, { ietf: true, now, policyName: tier })
      : rateLimitHeaders(decision, policy);
    if (!decision.allowed) {
      const error = new KeywardError("rate_limited", "Rate limit exceeded", { headers });
      return { ok: false, error, rateLimit: decision, headers };
    }
    return { ok: true, principal, rateLimit: decision, headers };
  };

  // Both paths catch their own failures, so `verify` needs no promise layer of its own.
  const verifyApiKey = async (token: string, options: VerifyOptions): Promise<VerifyResult> => {
    try {
      if (!ctx.format.isWellFormed(token)) return failure("invalid_api_key", "Invalid API key");
      const key: StoredKey | null = await ctx.keys.findByHash(ctx.hasher.hash(token));
      if (!key) return failure("invalid_api_key", "Invalid API key");
      const now = ctx.clock.now();
      if (key.revokedAt !== null) return failure("invalid_api_key", "API key has been revoked");
      if (key.expiresAt !== null && key.expiresAt <= now) {
        return failure("invalid_api_key", "API key has expired");
      }
      // From here the key is valid, and every request made with it counts, refused or not.
      const required = options.scopes;
      if (required && required.length > 0) {
        const missing = ctx.scopes.missing(key.scopes, required);
        if (missing.length > 0) {
          ctx.usageRecorder.record(key.id, options.route, now);
          return failure(
            "insufficient_scope",
            `API key lacks the required scope: ${missing.join(", ")}`,
          );
        }
      }
      let usage: UsageHit | undefined;
      if (ctx.rateLimits.recordsUsage) {
        const { method, route } = splitRoute(options.route);
        usage = { keyId: key.id, method, route, day: ctx.usageRecorder.dayOf(now) };
      } else {
        ctx.usageRecorder.record(key.id, options.route, now);
      }
      const policy = ctx.tiers.policy(key.tier);
      const decision = await ctx.rateLimits.consume(`key:${key.id}`, policy, now, usage);
      const principal: Principal = {
        kind: "key",
        userId: key.ownerId,
        keyId: key.id,
        name: key.name,
        scopes: key.scopes,
        tier: key.tier,
      };
      return decide(decision, policy, key.tier, principal, now);
    } catch (error) {
      return toFailure(error);
    }
  };

  const verifyJwt = async (token: string): Promise<VerifyResult> => {
    try {
      const claims = await ctx.verifyJwt(token);
      const tier = ctx.tiers.resolveAccountTier(ctx.accountTier(claims));
      const now = ctx.clock.now();
      const policy = ctx.tiers.policy(tier);
      const decision = await ctx.rateLimits.consume(`user:${claims.sub}`, policy, now);
      return decide(
        decision,
        policy,
        tier,
        { kind: "user", userId: claims.sub, tier, claims },
        now,
      );
    } catch (error) {
      return toFailure(error);
    }
  };

  const toFailure = (thrown: unknown): VerifyResult => {
    const error = thrown instanceof KeywardError ? thrown : internalError(thrown);
    return { ok: false, error, headers: headersOf(error) };
  };

  /**
   * @param authorization the raw `Authorization` header value
   * @param options.apiKeys `false` on endpoints that only a user session may call
   */
  return function verify(
    authorization: string | null | undefined,
    options: VerifyOptions & { apiKeys?: boolean } = {},
  ): Promise<VerifyResult> {
    const token = readBearer(authorization);
    if (token === null) return Promise.resolve(failure("missing_credentials", "Not authenticated"));
    if (!ctx.format.isKeyShaped(token)) return verifyJwt(token);
    if (options.apiKeys === false) {
      return Promise.resolve(
        failure("api_key_not_allowed", "API keys cannot be used here; use a user session token"),
      );
    }
    return verifyApiKey(token, options);
  };
}

function failure(
  code: ConstructorParameters<typeof KeywardError>[0],
  detail: string,
): VerifyResult {
  const error = new KeywardError(code, detail);
  return { ok: false, error, headers: headersOf(error) };
}

/**
 * A refusal's headers are the error's own (the `WWW-Authenticate` challenge of a 401), so a guard
 * that copies `result.headers` onto its own response sends them without knowing about them.
 */
function headersOf(error: KeywardError): Record<string, string> {
  const headers = error.headers as Record<string, string>;
  return Object.keys(headers).length === 0 ? noHeaders : headers;
}
