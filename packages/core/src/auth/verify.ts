import { internalError, KeywardError } from "../errors/keyward-error.js";
import type { KeywardContext } from "../keyward/context.js";
import { rateLimitHeaders } from "../rate-limit/headers.js";
import type { RateLimitDecision, RateLimitPolicy } from "../rate-limit/types.js";
import type { StoredKey } from "../storage/key-store.js";
import type { UsageHit } from "../storage/rate-limit-store.js";
import { cachedRouteLabelSplitter } from "../usage/route-label.js";
import { readBearer } from "./bearer.js";
import { clientAddressGroup } from "./client-address.js";
import type { FailedLookupLimiter } from "./failed-lookup-limiter.js";
import type { Principal, VerifyOptions, VerifyResult } from "./principal.js";

const noHeaders: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * The hot path. From a raw `Authorization` value to a decision, in this order, each step cheaper
 * than the next and none reached if an earlier one fails:
 * bearer parsing → (API key) shape and checksum → hash → (with a client address: cache peek →
 * the address's failed-lookup budget) → lookup → revoked / expired → scopes → rate limit (+ usage);
 * or (anything else) JWT → rate limit per user.
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

  const limiter = ctx.failedLookups;

  /**
   * The lookup, within the client address's budget. What the store can answer without I/O
   * (`peek`: the cache's entries, or anything a memory store holds) costs nothing and is never
   * limited, so a known key from a refused address still passes. Otherwise a lookup that finds
   * nothing spends one of the address's lookups (`failed-lookup-limiter.ts`), and an address with
   * none left is refused before storage, unless the hash found a key lately. Only here, so that
   * `verify` without a `clientIp` reads the store exactly as it always has.
   */
  const lookUpLimited = async (
    limiter: FailedLookupLimiter,
    secretHash: string,
    clientIp: string,
  ): Promise<StoredKey | null | VerifyResult> => {
    const known = ctx.keys.peek?.(secretHash);
    if (known !== undefined) return known;
    const group = clientAddressGroup(clientIp);
    if (group === undefined) return ctx.keys.findByHash(secretHash);
    const budget = limiter.take(group);
    if (!budget.allowed) {
      // A hash that found a key lately is no forgery: look it up anyway, outside the budget.
      if (!limiter.wasFound(secretHash)) return tooManyFailedLookups(budget, limiter.policy);
      const key = await ctx.keys.findByHash(secretHash);
      if (key === null) limiter.forget(secretHash);
      else limiter.rememberFound(secretHash);
      return key;
    }
    let key: StoredKey | null;
    try {
      key = await ctx.keys.findByHash(secretHash);
    } catch (error) {
      // A store that failed says nothing about the key; the client is not charged for it.
      limiter.giveBack(group);
      throw error;
    }
    if (key !== null) {
      limiter.giveBack(group);
      limiter.rememberFound(secretHash);
    }
    return key;
  };

  const tooManyFailedLookups = (
    decision: RateLimitDecision,
    policy: RateLimitPolicy,
  ): VerifyResult => {
    const headers = ctx.ietfRateLimitHeaders
      ? rateLimitHeaders(decision, policy, {
          ietf: true,
          now: ctx.clock.now(),
          policyName: "failed-lookups",
        })
      : rateLimitHeaders(decision, policy);
    const error = new KeywardError(
      "failed_lookups_limited",
      "Too many requests with unknown API keys from this address; retry after the time in Retry-After",
      { headers },
    );
    return { ok: false, error, headers };
  };

  // Both paths catch their own failures, so `verify` needs no promise layer of its own.
  const verifyApiKey = async (token: string, options: VerifyOptions): Promise<VerifyResult> => {
    try {
      if (!ctx.format.isWellFormed(token)) return failure("invalid_api_key", "Invalid API key");
      const secretHash = ctx.hasher.hash(token);
      let key: StoredKey | null;
      if (limiter && options.clientIp) {
        const found = await lookUpLimited(limiter, secretHash, options.clientIp);
        if (found !== null && "ok" in found) return found;
        key = found;
      } else {
        key = await ctx.keys.findByHash(secretHash);
      }
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

  const toFailure = (error: unknown): VerifyResult => ({
    ok: false,
    error: error instanceof KeywardError ? error : internalError(error),
    headers: noHeaders,
  });

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
  return { ok: false, error: new KeywardError(code, detail), headers: noHeaders };
}
