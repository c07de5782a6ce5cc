import { internalError, KeywardError } from "../errors/keyward-error.js";
import { userOwner } from "../keys/owner.js";
import type { KeywardContext } from "../keyward/context.js";
import { rateLayersOf } from "../limits/attempt-layers.js";
import { describedLayer, layeredHeaders, layerRefusal } from "../limits/layered-response.js";
import { planKeyLimits } from "../limits/resolve-layers.js";
import type { LayeredDecision, LimitLayer } from "../limits/types.js";
import { bucketFor, type RateLimitBucket } from "../rate-limit/bucket.js";
import { rateLimitHeaders } from "../rate-limit/headers.js";
import type { RateLimitDecision, RateLimitPolicy } from "../rate-limit/types.js";
import {
  insufficientScopeDetail,
  requiresAnyScope,
  unmetScopes,
} from "../scopes/scope-requirement.js";
import type { StoredKey } from "../storage/key-store.js";
import type { UsageHit } from "../storage/rate-limit-store.js";
import { cachedRouteLabelSplitter } from "../usage/route-label.js";
import { readBearer } from "./bearer.js";
import { clientAddressGroup } from "./client-address.js";
import type { FailedLookupLimiter } from "./failed-lookup-limiter.js";
import type { JwtClaims } from "./jwt.js";
import { firstRefusal, type KeyCheck, type KeyCheckKit } from "./key-checks.js";
import type { LegacyVerifyKit } from "./legacy-keys.js";
import { isPromise, type Pending } from "./pending-verify.js";
import type { Principal, SessionUser, VerifyOptions, VerifyResult } from "./principal.js";

const noHeaders: Record<string, string> = Object.freeze({}) as Record<string, string>;
const noScopes: readonly string[] = Object.freeze([]);

/**
 * The hot path. From a raw `Authorization` value to a decision, in this order, none reached if an
 * earlier one fails, and nothing that can reach storage before the token is known to be well formed:
 * bearer parsing → (API key) prefix → hash → cache peek → (not found there) shape and checksum →
 * (with `environment`) the prefix's environment → (found by the peek: on to the checks below;
 * else, with a client address: the address's failed-lookup budget) → lookup →
 * revoked / expired / disabled → the key checks (`auth/key-checks.ts`: with `environment`, the
 * key's recorded environment; then the features', such as lifecycle's IP allowlist) → rate limit
 * (+ usage; a request lacking a scope passes the rate layers only, never quota or credits) → scopes;
 * or (anything else) JWT or the host's session → rate limit per user.
 * It never throws: failures come back as `{ ok: false, error }`.
 */
export function createVerify(ctx: KeywardContext) {
  const splitRoute = cachedRouteLabelSplitter();

  // Mistakes in how verify is called: each is logged once, never on the path of a correct call.
  const warnNoRoute = () =>
    ctx.warnOnce(
      "no-route",
      () =>
        'verify() was called without `route` for an API key, so its usage is recorded under "ANY *". Pass the route template, e.g. { route: "GET /profiles/:slug" }.',
    );
  const warnUnknownScopes = (missing: readonly string[]) => {
    const unknown = missing.filter((scope) => !ctx.scopes.has(scope));
    if (unknown.length === 0) return;
    ctx.warnOnce(
      `scope:${unknown.join(",")}`,
      () =>
        `a route requires ${unknown.map((scope) => JSON.stringify(scope)).join(", ")}, which is not a configured scope, so no API key can call it. Configured scopes: ${ctx.scopes.names.join(", ")}.`,
    );
  };
  const warnUnknownTier = (claimed: unknown, tier: string) => {
    if (claimed === undefined || claimed === null) return; // no tier claim: the lowest, as documented
    ctx.warnOnce(
      `tier:${String(claimed).slice(0, 64)}`,
      () =>
        `a session's account tier ${JSON.stringify(claimed)} is not a configured tier (${ctx.tiers.names.join(", ")}), so the account is treated as the lowest, "${tier}". Configure that tier, or map claims to tiers with \`accountTier(claims)\`.`,
    );
  };

  const headersFor = (
    decision: RateLimitDecision,
    policy: RateLimitPolicy,
    tier: string,
    now: number,
  ): Record<string, string> =>
    rateLimitHeaders(decision, policy, { now, ietf: ctx.ietfRateLimitHeaders, policyName: tier });

  const rateLimited = (decision: RateLimitDecision, headers: Record<string, string>) => {
    const error = new KeywardError("rate_limited", "Rate limit exceeded", { headers });
    return { ok: false, error, rateLimit: decision, headers } as const;
  };

  const limiter = ctx.failedLookups;
  // Without `environments` every key is in the one environment: no lookup per request.
  const onlyEnvironment = ctx.environments.configured ? undefined : ctx.environments.defaultName;

  /**
   * A key of another environment than the route takes: refused from its prefix alone, before any
   * lookup. 401 rather than 403: the key does not authenticate here at all (as a key
   * of another service would not), and the fix is another key, not another permission.
   */
  const otherEnvironment = (token: string, wanted: string): VerifyResult | undefined => {
    if (!ctx.environments.has(wanted)) {
      throw new TypeError(
        `Keyward: verify's \`environment\` ${JSON.stringify(wanted)} is not a configured environment (${ctx.environments.names.join(", ")})`,
      );
    }
    const actual = ctx.environments.nameOfPrefix(ctx.format.prefixOf(token) ?? "");
    if (actual === wanted) return undefined;
    return otherEnvironmentKey(actual, wanted);
  };

  const otherEnvironmentKey = (actual: string | undefined, wanted: string): VerifyResult =>
    failure(
      "invalid_api_key",
      `API key is for the ${actual} environment; this endpoint takes ${wanted} keys`,
    );

  /**
   * The kernel's key checks, then the listed features' (`auth/key-checks.ts`): the route's
   * environment against the key's recorded one, and an allowlist where no listed feature checks
   * allowlists (refused: never waved through).
   */
  // The listed features' key fields: a restriction no feature checks refuses its key instead.
  const declared = new Set(ctx.keyFields.map((field) => field.name));
  const keyChecks: readonly KeyCheck[] = [
    {
      // The prefix said which environment the token claims; the record says which one the key is
      // in. They agree for every key Keyward made, but a secret issued with another prefix (by a
      // second configuration writing to the same store) must not pass a route of the other one.
      name: "environment",
      check(key, options) {
        if (options.environment === undefined) return undefined;
        const actual = ctx.environments.ofKey(key);
        return actual === options.environment
          ? undefined
          : otherEnvironmentKey(actual, options.environment);
      },
    },
    ...(declared.has("allowedIps") ? [] : [allowlistWithoutCheck]),
    ...(declared.has("resources") ? [] : [resourcesWithoutCheck]),
    ...ctx.keyChecks,
  ];
  const keyCheckKit: KeyCheckKit = { refuse: failure, warnOnce: ctx.warnOnce };

  // Each key object's bucket name, built once. The store hands the same object out on every request
  // while it holds the key (a memory-store key, a cached one), and a name concatenated per request
  // would cost the memory rate limiter's Map a fresh string hash each time (about 0.13 µs, near
  // half the key's SHA-256). Weak: an entry goes with its key object.
  const buckets = new WeakMap<StoredKey, RateLimitBucket>();
  const bucketOf = (key: StoredKey): RateLimitBucket => {
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      bucket = bucketFor.key(key.id);
      buckets.set(key, bucket);
    }
    return bucket;
  };

  // `permissions({ recordAddress })`: the address a use records, from the request's `clientIp`.
  const addressOf = ctx.usageAddress;

  /** The usage to count inside the rate-limit call, when the store does (else undefined). */
  const usageHit = (keyId: string, options: VerifyOptions, now: number) => {
    if (!ctx.rateLimits.recordsUsage) return undefined;
    const { method, route } = splitRoute(options.route);
    const day = ctx.usageRecorder.dayOf(now);
    if (addressOf !== undefined && options.clientIp) {
      const address = addressOf(options.clientIp);
      if (address !== undefined) return { keyId, method, route, day, address } satisfies UsageHit;
    }
    return { keyId, method, route, day } satisfies UsageHit;
  };

  /** Counts a use in Keyward's own buffer (the store did not count it with the rate limit). */
  const recordUse = (keyId: string, options: VerifyOptions, now: number) => {
    // Without `recordAddress`, exactly the call it always was: no address is looked at.
    if (addressOf === undefined) return ctx.usageRecorder.record(keyId, options.route, now);
    const address = options.clientIp ? addressOf(options.clientIp) : undefined;
    if (address === undefined) ctx.usageRecorder.record(keyId, options.route, now);
    else ctx.usageRecorder.recordWithAddress(keyId, options.route, now, address);
  };

  /**
   * The lookup, within the client address's budget, once `peek` found nothing. What the store can
   * answer without I/O (`peek`: the cache's entries, or anything a memory store holds) costs nothing
   * and is never limited, so a known key from a refused address still passes. A lookup that finds
   * nothing spends one of the address's lookups (`failed-lookup-limiter.ts`), and an address with
   * none left is refused before storage, unless the hash found a key lately. Only here, so that
   * `verify` without a `clientIp` reads the store exactly as it always has.
   */
  const lookUpLimited = async (
    limiter: FailedLookupLimiter,
    secretHash: string,
    clientIp: string,
  ): Promise<StoredKey | null | VerifyResult> => {
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

  /** The store's lookup of a hash, within the client address's budget when there is one. */
  const lookUp = (secretHash: string, options: VerifyOptions) =>
    limiter && options.clientIp
      ? lookUpLimited(limiter, secretHash, options.clientIp)
      : ctx.keys.findByHash(secretHash);

  const tooManyFailedLookups = (
    decision: RateLimitDecision,
    policy: RateLimitPolicy,
  ): VerifyResult => {
    const headers = rateLimitHeaders(decision, policy, {
      now: ctx.clock.now(),
      ietf: ctx.ietfRateLimitHeaders,
      policyName: "failed-lookups",
    });
    const error = new KeywardError(
      "failed_lookups_limited",
      "Too many requests with unknown API keys from this address; retry after the time in Retry-After",
      { headers },
    );
    return { ok: false, error, headers };
  };

  /**
   * An API key, from its token to a decision. Synchronous for as long as the store answers without
   * I/O (`peek`, `consumeNow`: a memory store, a cached key): a request through an HTTP server then
   * spends no promise, and each costs about a microsecond there, between the framework's own work
   * (docs/benchmarks.md, "HTTP"). A store that does I/O continues the same steps once its promise
   * settles. Never throws: every failure, sync or async, comes back through `toFailure`.
   */
  const verifyApiKey = (token: string, options: VerifyOptions): Pending<VerifyResult> => {
    try {
      const secretHash = ctx.hasher.hash(token);
      // What the store holds without I/O (any memory-store key, a cached one) is read here, free
      // and never limited, so a known key from a refused address still passes.
      const known = ctx.keys.peek?.(secretHash);
      // Found by its hash, the token is the secret of a key this format made (the prefixes are
      // the configured ones, `isKeyShaped` checked that), so its checksum holds: checking it again
      // cost a tenth of a verification. Every other token is checked before any lookup that could
      // reach storage: a typo or a truncated key never costs a query.
      if (!known && !ctx.format.isWellFormed(token)) {
        // Not a Keyward key, but perhaps one imported in its own format that shares the prefix.
        if (legacy?.accepts(token, true)) return verifyLegacyKey(token, options, secretHash);
        return failure("invalid_api_key", "Invalid API key");
      }
      if (options.environment !== undefined) {
        const refused = otherEnvironment(token, options.environment);
        if (refused) return refused;
      }
      if (known) return admitKey(known, secretHash, options);
      if (known === null) return failure("invalid_api_key", "Invalid API key");
      return continueWith(lookUp(secretHash, options), (key) =>
        key !== null && "ok" in key ? key : admitKey(key, secretHash, options),
      );
    } catch (error) {
      return toFailure(error);
    }
  };

  const legacy = ctx.legacyKeys;

  /** What an imported key's lookup (`legacy.verify`) verifies with: the kernel's own steps. */
  const legacyKit: LegacyVerifyKit = {
    hash: (token) => ctx.hasher.hash(token),
    peek: (hash) => ctx.keys.peek?.(hash),
    find(hash, options, charged) {
      const peeked = ctx.keys.peek?.(hash);
      if (peeked !== undefined) return peeked;
      return charged ? lookUp(hash, options) : ctx.keys.findByHash(hash);
    },
    admit: (key, hash, options) => admitKey(key, hash, options),
    rehash: (key, from, to) => ctx.keys.rehash?.(key.id, from, to),
    report: (message, cause) => ctx.reportFailure(message, cause),
  };

  /** A token in an imported key's format, verified by the lookup that took it. Never throws. */
  const verifyLegacyKey = (
    token: string,
    options: VerifyOptions,
    secretHash?: string,
  ): Pending<VerifyResult> => {
    try {
      const result = legacy!.verify(token, options, legacyKit, secretHash);
      return isPromise(result) ? result.then(undefined, toFailure) : result;
    } catch (error) {
      return toFailure(error);
    }
  };

  /** `next(value)` now, or once `value` settles; a rejection or a throw becomes a failure. */
  const continueWith = <T>(
    value: Pending<T>,
    next: (settled: T) => Pending<VerifyResult>,
  ): Pending<VerifyResult> => {
    if (!isPromise(value)) return next(value);
    return value.then((settled) => {
      try {
        return next(settled);
      } catch (error) {
        return toFailure(error);
      }
    }, toFailure);
  };

  /** The found key (or null), checked, rate limited and counted. Throws on a store's failure. */
  const admitKey = (
    key: StoredKey | null,
    secretHash: string,
    options: VerifyOptions,
  ): Pending<VerifyResult> => {
    if (!key) return failure("invalid_api_key", "Invalid API key");
    const now = ctx.clock.now();
    // Found by the secret a graceful rotation replaced: it works until the grace ends, then it is
    // as unknown as any other replaced secret. (Null for almost every key: one comparison.)
    if (key.previousSecretHash === secretHash && !(now < key.previousSecretExpiresAt!)) {
      return failure("invalid_api_key", "Invalid API key");
    }
    if (key.revokedAt !== null) return failure("invalid_api_key", "API key has been revoked");
    if (key.expiresAt !== null && key.expiresAt <= now) {
      return failure("invalid_api_key", "API key has expired");
    }
    if (key.disabledAt !== null) return failure("invalid_api_key", "API key is disabled");
    // The key checks, the kernel's and the features': the first refusal wins.
    const refused = firstRefusal(keyChecks, key, options, keyCheckKit);
    if (refused !== undefined) return refused;
    // From here the key is valid: every request made with it is rate limited and counted, whether
    // or not it may call this route, so probing routes it lacks the scope for is limited too.
    // The key runs at its own tier capped at its owner's current one (a downgrade applies).
    const tier = ctx.tiers.effective(key.tier, key.ownerTier);
    if (options.route === undefined) warnNoRoute();
    if (key.limits == null && !ctx.tiers.layered) {
      // A key with only its tier's own rate limit: one layer, one store call.
      const policy = ctx.tiers.policy(tier);
      return limitOneLayer(key, options, tier, policy, now);
    }
    const cost = options.cost ?? 1;
    if (!Number.isSafeInteger(cost) || cost < 0) {
      throw new TypeError(`Keyward: verify's \`cost\` must be a whole number ≥ 0, got ${cost}`);
    }
    const plan = planKeyLimits(ctx.tiers, key, tier, cost);
    if (!plan.layers) return limitOneLayer(key, options, tier, plan.policy, now);
    // A request refused for its scopes is not served: it counts against the rate layers (attempts)
    // but spends no quota or credits (what the owner pays for). The scopes are in the record, so
    // this costs no store call; the 403 itself still comes after the limiter, as on every path.
    // Asked only when a layer is billed, and the answer carried on to the scope check.
    const rateOnly = rateLayersOf(plan.layers);
    const missing = rateOnly === plan.layers ? undefined : missingScopes(key, options);
    const layers = missing !== undefined && missing.length > 0 ? rateOnly : plan.layers;
    return limitLayers(key, options, tier, plan.owner, layers, now, missing);
  };

  /** One rate-limit layer (the key's own), with usage counted in the same store call if it can. */
  const limitOneLayer = (
    key: StoredKey,
    options: VerifyOptions,
    tier: string,
    policy: RateLimitPolicy,
    now: number,
  ): Pending<VerifyResult> => {
    const store = ctx.rateLimits;
    const usage = usageHit(key.id, options, now);
    const bucket = bucketOf(key);
    const decided = store.consumeNow
      ? store.consumeNow(bucket, policy, now, usage)
      : store.consume(bucket, policy, now, usage);
    // Decided now (the memory limiter): on at once, without the closure `continueWith` would need.
    if (!isPromise(decided)) return limited(key, options, tier, policy, now, usage, decided);
    return continueWith(decided, (decision) =>
      limited(key, options, tier, policy, now, usage, decision),
    );
  };

  /** The rate limiter's answer for one layer, counted, with its headers and the scope check. */
  const limited = (
    key: StoredKey,
    options: VerifyOptions,
    tier: string,
    policy: RateLimitPolicy,
    now: number,
    usage: UsageHit | undefined,
    decision: RateLimitDecision,
  ): VerifyResult => {
    // Counted only once the limiter answered: a request that fails there is a 500, not a use.
    if (!usage) recordUse(key.id, options, now);
    const headers = headersFor(decision, policy, tier, now);
    if (!decision.allowed) return rateLimited(decision, headers);
    return withScopes(key, options, tier, decision, headers);
  };

  /**
   * A key with layers beyond its own rate limit (owner, quota, credits): one atomic store step,
   * answered at once when every layer is in memory (`consumeNow`), as the single layer is.
   */
  const limitLayers = (
    key: StoredKey,
    options: VerifyOptions,
    tier: string,
    owner: string,
    layers: readonly LimitLayer[],
    now: number,
    missing: readonly string[] | undefined,
  ): Pending<VerifyResult> => {
    const limiter = ctx.layeredLimits;
    if (!limiter) {
      throw new TypeError(
        "Keyward: this key has layered limits, but the store's rate limits cannot apply them (`consumeLayers`)",
      );
    }
    // Built only when the limiter counts it; otherwise `limitedLayers` records the use itself.
    const counted = limiter.recordsUsage ? usageHit(key.id, options, now) : undefined;
    const request = { owner, layers, now, usage: counted };
    const decided = limiter.consumeNow ? limiter.consumeNow(request) : limiter.consume(request);
    return continueWith(decided, (layered) =>
      limitedLayers(key, options, tier, owner, layers, now, counted, layered, missing),
    );
  };

  /** The layers' answer, counted, with its headers, the threshold events and the scope check. */
  const limitedLayers = (
    key: StoredKey,
    options: VerifyOptions,
    tier: string,
    owner: string,
    layers: readonly LimitLayer[],
    now: number,
    counted: UsageHit | undefined,
    layered: LayeredDecision,
    missing: readonly string[] | undefined,
  ): VerifyResult => {
    if (!counted) recordUse(key.id, options, now);
    const headers = layeredHeaders(layered, layers, { now, ietf: ctx.ietfRateLimitHeaders, tier });
    const decision = pickDecision(layered);
    if (!layered.allowed) {
      const error = layerRefusal(layered, layers, headers);
      return { ok: false, error, rateLimit: decision, headers };
    }
    // The point "spent": only an admitted request spent anything (a threshold crossed, say).
    for (const step of ctx.spendSteps) step.spent(key, owner, layers, layered.layers, now);
    return withScopes(key, options, tier, decision, headers, missing);
  };

  /** The scopes the route requires that the key does not hold (none required: none missing). */
  const missingScopes = (key: StoredKey, options: VerifyOptions): readonly string[] => {
    const required = options.scopes;
    return requiresAnyScope(required) ? unmetScopes(ctx.scopes, key.scopes, required!) : noScopes;
  };

  /**
   * An admitted request: refused only if the key lacks a scope the route requires.
   * @param known the missing scopes when the caller already asked (`missingScopes`)
   */
  const withScopes = (
    key: StoredKey,
    options: VerifyOptions,
    tier: string,
    decision: RateLimitDecision,
    headers: Record<string, string>,
    known?: readonly string[],
  ): VerifyResult => {
    const required = options.scopes;
    if (requiresAnyScope(required)) {
      const missing = known ?? unmetScopes(ctx.scopes, key.scopes, required!);
      if (missing.length > 0) {
        warnUnknownScopes(missing);
        const error = new KeywardError(
          "insufficient_scope",
          insufficientScopeDetail(required!, missing),
        );
        return { ok: false, error, rateLimit: decision, headers };
      }
    }
    const environment = onlyEnvironment ?? ctx.environments.ofKey(key);
    // `userId` only where a user owns the key: an organization is never taken for one. Two
    // literals rather than a spread: this is the hot path, one object per request.
    const principal: Principal =
      key.ownerType === "user"
        ? {
            kind: "key",
            owner: { type: "user", id: key.ownerId },
            userId: key.ownerId,
            createdBy: key.createdBy,
            metadata: key.metadata,
            environment,
            keyId: key.id,
            name: key.name,
            scopes: key.scopes,
            tier,
          }
        : {
            kind: "key",
            owner: { type: "organization", id: key.ownerId },
            createdBy: key.createdBy,
            metadata: key.metadata,
            environment,
            keyId: key.id,
            name: key.name,
            scopes: key.scopes,
            tier,
          };
    return { ok: true, principal, rateLimit: decision, headers };
  };

  /**
   * A user, from a verified JWT or the host's session: limited per user at the account tier.
   * @param managing a key-management call: the tier is recorded before the call goes on.
   */
  const admitUser = async (
    claims: JwtClaims,
    claimed: unknown,
    managing: boolean,
  ): Promise<VerifyResult> => {
    const tier = ctx.tiers.resolveAccountTier(claimed);
    if (claimed !== tier) warnUnknownTier(claimed, tier);
    const now = ctx.clock.now();
    const policy = ctx.tiers.policy(tier);
    const decision = await ctx.rateLimits.consume(bucketFor.user(claims.sub), policy, now);
    const headers = headersFor(decision, policy, tier, now);
    if (!decision.allowed) return rateLimited(decision, headers);
    // A session says what the account's tier is now, and its keys follow: at once before key
    // management (a downgraded account cannot act on its old tier), in the background elsewhere.
    const owner = userOwner(claims.sub);
    if (managing) await ctx.accountTiers.record(owner, tier);
    else ctx.accountTiers.notice(owner, tier);
    const principal: Principal = { kind: "user", userId: claims.sub, tier, claims };
    return { ok: true, principal, rateLimit: decision, headers };
  };

  const verifyJwt = async (token: string, managing: boolean): Promise<VerifyResult> => {
    try {
      const claims = await ctx.verifyJwt(token);
      return await admitUser(claims, ctx.accountTier(claims), managing);
    } catch (error) {
      return toFailure(error);
    }
  };

  const verifySession = async (
    resolve: () => SessionResolution,
    managing: boolean,
  ): Promise<VerifyResult> => {
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
  };

  const toFailure = (error: unknown): VerifyResult => {
    const keywardError = error instanceof KeywardError ? error : internalError(error);
    if (keywardError.status >= 500) {
      ctx.reportFailure("verifying a request failed (500)", keywardError.cause ?? keywardError);
    }
    return { ok: false, error: keywardError, headers: headersOf(keywardError) };
  };

  /**
   * @param authorization the raw `Authorization` header value
   * @param options.session the host's session for this request, asked only when no bearer token
   *   was sent (from `authenticate` and the endpoints, which have the request)
   * @param options.managing a key-management call: only a user session may make it
   */
  return function verify(
    authorization: string | null | undefined,
    options: InternalVerifyOptions = {},
  ): Pending<VerifyResult> {
    const accept = options.managing ? "session" : (options.accept ?? "any");
    const managing = options.managing === true;
    const token = readBearer(authorization);
    if (token === null) {
      if (options.session && accept !== "api-key") return verifySession(options.session, managing);
      return failure("missing_credentials", "Not authenticated");
    }
    if (ctx.format.isKeyShaped(token)) {
      if (accept === "session") {
        return failure(
          "api_key_not_allowed",
          "API keys cannot be used here; use a user session token",
        );
      }
      return verifyApiKey(token, options);
    }
    // A token in an imported key's format (never on a key-management call, which takes sessions).
    if (legacy && accept !== "session" && legacy.accepts(token, false)) {
      return verifyLegacyKey(token, options);
    }
    if (accept === "api-key") {
      return failure("api_key_required", "This route requires an API key");
    }
    return verifyJwt(token, managing);
  };
}

export type SessionResolution =
  | SessionUser
  | null
  | undefined
  | Promise<SessionUser | null | undefined>;

export interface InternalVerifyOptions extends VerifyOptions {
  session?: () => SessionResolution;
  managing?: boolean;
}

/** The claims a session stands for: the host's, with `sub` set to the user id. */
function sessionClaims(user: SessionUser): JwtClaims {
  if (typeof user !== "object" || typeof user.userId !== "string" || user.userId === "") {
    throw new TypeError("Keyward: `session` must resolve to { userId: string, ... } or null");
  }
  return { ...user.claims, sub: user.userId };
}

/** The layer `X-RateLimit-*` describes, as the single decision `VerifyResult.rateLimit` holds. */
function pickDecision(layered: LayeredDecision): RateLimitDecision {
  const { limit, remaining, reset, retryAfter } = layered.layers[describedLayer(layered)]!;
  return { allowed: layered.allowed, limit, remaining, reset, retryAfter };
}

/**
 * A key with an allowlist, on an instance where no listed feature checks allowlists (no
 * `lifecycle()`): refused from every address, and said once in the log, rather than waved through.
 */
const allowlistWithoutCheck: KeyCheck = {
  name: "ip-allowlist-unchecked",
  check(key, _options, kit) {
    if (key.fields?.allowedIps == null) return undefined;
    kit.warnOnce(
      "allowlist-without-lifecycle",
      () =>
        "a key with an IP allowlist was refused because this instance does not list lifecycle(), which checks allowlists; list it (from @keyward/core/lifecycle) on every instance that verifies these keys.",
    );
    return kit.refuse("ip_not_allowed", "This API key may not be used from this client address");
  },
};

/**
 * A key limited to resources on an instance without `permissions()`: refused wherever a route
 * names a resource (said once in the log), rather than let through to resources outside its limits.
 */
const resourcesWithoutCheck: KeyCheck = {
  name: "resources-unchecked",
  check(key, options, kit) {
    if (key.fields?.resources == null || options.resource === undefined) return undefined;
    kit.warnOnce(
      "resources-without-permissions",
      () =>
        "a key limited to resources was refused because this instance does not list permissions(), which checks them; list it (from @keyward/core/permissions) on every instance that verifies these keys.",
    );
    return kit.refuse("resource_not_allowed", "This API key may not be used for this resource");
  },
};

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
