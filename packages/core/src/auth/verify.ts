/**
 * `verify`: from a raw `Authorization` value to a decision, as a runner over the phases of
 * `verify-phases.ts`. It never throws: failures come back as `{ ok: false, error }`. In this order,
 * none reached if an earlier one refuses, and nothing that can reach storage before the token is
 * known to be well formed:
 *
 * 1. the bearer token; a key-shaped one goes on as an API key, any other to the resolvers, then to
 *    the JWT verifier or the host's session (`verify-user.ts`: limited per user);
 * 2. resolve: Keyward's format (hash → the store's `peek` → else shape and checksum → the prefix's
 *    environment → the lookup, within the client address's budget, `key-lookup.ts`), or the first
 *    listed resolver that accepts the token;
 * 3. check: the secret a graceful rotation replaced, revoked, expired, disabled; then the kernel's
 *    key checks and the features' (`kernel-checks.ts`, `key-checks.ts`): the first refusal wins;
 * 4. charge: the limit layers (`key-charge.ts`), the use counted; spent: the spend steps told; a
 *    store that finds the key changed since its record was read (`KeyChangedError`) spends
 *    nothing, and steps 3 and 4 run once more with the record as it is now;
 * 5. the scopes and the principal (`key-principal.ts`);
 *
 * and around all of it the observers (`verify-wrappers.ts`).
 *
 * While the store answers without I/O (`peek`, `consumeNow`: a memory store, a cached key), all of
 * it runs synchronously: a request through an HTTP server then spends no promise, and each costs
 * about a microsecond there, between the framework's own work (docs/benchmarks.md, "HTTP"). A
 * store that does I/O continues the same steps once its promise settles (`continueWith`).
 */
import type { KeywardContext } from "../keyward/context.js";
import { KeyChangedError } from "../storage/key-changed-error.js";
import type { StoredKey } from "../storage/key-store.js";
import { readBearer } from "./bearer.js";
import { keyChecksOf } from "./kernel-checks.js";
import type { KeyAttempt } from "./key-attempt.js";
import { keyCharge } from "./key-charge.js";
import { firstRefusal, type KeyCheckKit } from "./key-checks.js";
import { keyLookup } from "./key-lookup.js";
import { keyAdmission } from "./key-principal.js";
import { isRefusal, type KeyResolver, type ResolveKit } from "./key-resolvers.js";
import { isPromise, type Pending } from "./pending-verify.js";
import type { VerifyOptions, VerifyResult } from "./principal.js";
import type { SpendKit } from "./spend-steps.js";
import { continuation } from "./verify-continuation.js";
import type { VerifyPhases } from "./verify-phases.js";
import { failure, failureOf, otherEnvironmentKey } from "./verify-refusals.js";
import { userVerification } from "./verify-user.js";
import { verifyWarnings } from "./verify-warnings.js";
import { type InternalVerifyOptions, type VerifyFunction, wrapVerify } from "./verify-wrappers.js";

export type { SessionResolution } from "./verify-user.js";
export type { InternalVerifyOptions } from "./verify-wrappers.js";

/**
 * @param phases the listed features' steps, each phase after the kernel's own
 * @param spendKit what the spend steps write with
 */
export function createVerify(
  ctx: KeywardContext,
  phases: VerifyPhases,
  spendKit: SpendKit,
): VerifyFunction {
  const toFailure = failureOf(ctx.reportFailure);
  const continueWith = continuation(toFailure);
  // The charge's: a store's `KeyChangedError` is not a failure yet, `admitKey` checks again.
  const chargeContinueWith = continuation((error) => {
    if (error instanceof KeyChangedError) throw error;
    return toFailure(error);
  });
  const warnings = verifyWarnings(ctx);
  const users = userVerification(ctx, warnings, toFailure);
  const lookUp = keyLookup(ctx);
  const checks = keyChecksOf(ctx, phases.check);
  const checkKit: KeyCheckKit = { refuse: failure, warnOnce: ctx.warnOnce };
  const charge = keyCharge(ctx, {
    phases,
    admission: keyAdmission(ctx, warnings),
    continueWith: chargeContinueWith,
    spendKit,
  });
  const resolvers = phases.resolve;

  /** Step 1: the token, to the key path, a resolver, a JWT or the session. */
  function verify(
    authorization: string | null | undefined,
    options: InternalVerifyOptions = {},
  ): Pending<VerifyResult> {
    const accept = options.managing ? "session" : (options.accept ?? "any");
    const managing = options.managing === true;
    const token = readBearer(authorization);
    if (token === null) {
      if (options.session && accept !== "api-key") return users.session(options.session, managing);
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
    // A token a resolver knows (never on a key-management call, which takes sessions).
    const resolver = accept === "session" ? undefined : resolverOf(token, false);
    if (resolver) return resolveWith(resolver, token, options);
    if (accept === "api-key") {
      return failure("api_key_required", "This route requires an API key");
    }
    return users.jwt(token, managing);
  }

  /** Step 2, Keyward's format: the key a token stands for, then its admission. */
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
        // Not a Keyward key, but perhaps one a resolver knows that shares the prefix.
        const resolver = resolverOf(token, true);
        if (resolver) return resolveWith(resolver, token, options, secretHash);
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

  /** The prefix's environment against the route's: refused before any lookup. */
  const otherEnvironment = (token: string, wanted: string): VerifyResult | undefined => {
    if (!ctx.environments.has(wanted)) {
      throw new TypeError(
        `Keyward: verify's \`environment\` ${JSON.stringify(wanted)} is not a configured environment (${ctx.environments.names.join(", ")})`,
      );
    }
    const actual = ctx.environments.nameOfPrefix(ctx.format.prefixOf(token) ?? "");
    return actual === wanted ? undefined : otherEnvironmentKey(actual, wanted);
  };

  /** Step 2, the listed resolvers: the first that takes the token. */
  const resolverOf = (token: string, keyShaped: boolean): KeyResolver | undefined => {
    for (const resolver of resolvers) if (resolver.accepts(token, keyShaped)) return resolver;
    return undefined;
  };

  /** What a resolver looks keys up with: the kernel's own steps. */
  const resolveKit: ResolveKit = {
    hash: (token) => ctx.hasher.hash(token),
    peek: (hash) => ctx.keys.peek?.(hash),
    find(hash, options, charged) {
      const peeked = ctx.keys.peek?.(hash);
      if (peeked !== undefined) return peeked;
      return charged ? lookUp(hash, options) : ctx.keys.findByHash(hash);
    },
    rehash: (key, from, to) => ctx.keys.rehash?.(key.id, from, to),
    report: (message, cause) => ctx.reportFailure(message, cause),
  };

  /** A token a resolver took, resolved and admitted as any key. Never throws. */
  const resolveWith = (
    resolver: KeyResolver,
    token: string,
    options: VerifyOptions,
    secretHash?: string,
  ): Pending<VerifyResult> => {
    try {
      return continueWith(resolver.resolve(token, options, resolveKit, secretHash), (resolved) =>
        isRefusal(resolved) ? resolved : admitKey(resolved.key, resolved.hash, options),
      );
    } catch (error) {
      return toFailure(error);
    }
  };

  /**
   * Step 3, check: the found key (or null) live and let on by every check; then step 4, once more
   * with the current record when the store found the key changed (`again`: not yet done).
   */
  const admitKey = (
    key: StoredKey | null,
    secretHash: string,
    options: VerifyOptions,
    again = true,
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
    const refused = firstRefusal(checks, key, options, checkKit);
    if (refused !== undefined) return refused;
    if (options.route === undefined) warnings.noRoute();
    // The key runs at its own tier capped at its owner's current one (a downgrade applies).
    const tier = ctx.tiers.effective(key.tier, key.ownerTier);
    const attempt: KeyAttempt = { key, options, tier, now, cost: options.cost ?? 1 };
    const charged = charge(attempt);
    if (!isPromise(charged)) return charged;
    return charged.catch((error: unknown) =>
      again && error instanceof KeyChangedError
        ? admitCurrent(error.current, secretHash, options)
        : toFailure(error),
    );
  };

  /**
   * The record a store found current, checked and charged as the found key was: if the token is
   * still its secret (a rotation may have replaced it), and at most once more.
   */
  const admitCurrent = (
    current: StoredKey | null,
    secretHash: string,
    options: VerifyOptions,
  ): Pending<VerifyResult> => {
    const found =
      current !== null &&
      (current.secretHash === secretHash || current.previousSecretHash === secretHash);
    return admitKey(found ? current : null, secretHash, options, false);
  };

  return wrapVerify(verify, phases.around, ctx.reportFailure);
}
