/**
 * The last step of an API key's request, once every limit admitted it: refused only if the key
 * lacks a scope the route requires, else the principal the host sees.
 */
import { KeywardError } from "../errors/keyward-error.js";
import type { KeywardContext } from "../keyward/context.js";
import type { RateLimitDecision } from "../rate-limit/types.js";
import {
  insufficientScopeDetail,
  requiresAnyScope,
  unmetScopes,
} from "../scopes/scope-requirement.js";
import type { KeyAttempt } from "./key-attempt.js";
import type { Principal, VerifyResult } from "./principal.js";
import type { VerifyWarnings } from "./verify-warnings.js";

const noScopes: readonly string[] = Object.freeze([]);

export interface KeyAdmission {
  /** The scopes the route requires that the key does not hold (none required: none missing). */
  missingScopes(attempt: KeyAttempt): readonly string[];
  /**
   * An admitted request: refused only for a scope the key lacks.
   * @param known the missing scopes when the caller already asked (`missingScopes`)
   */
  admit(
    attempt: KeyAttempt,
    decision: RateLimitDecision,
    headers: Record<string, string>,
    known?: readonly string[],
  ): VerifyResult;
}

export function keyAdmission(
  ctx: Pick<KeywardContext, "scopes" | "environments">,
  warnings: VerifyWarnings,
): KeyAdmission {
  // Without `environments` every key is in the one environment: no lookup per request.
  const onlyEnvironment = ctx.environments.configured ? undefined : ctx.environments.defaultName;
  return {
    missingScopes({ key, options }) {
      const required = options.scopes;
      return requiresAnyScope(required) ? unmetScopes(ctx.scopes, key.scopes, required!) : noScopes;
    },
    admit({ key, options, tier }, decision, headers, known) {
      const required = options.scopes;
      if (requiresAnyScope(required)) {
        const missing = known ?? unmetScopes(ctx.scopes, key.scopes, required!);
        if (missing.length > 0) {
          warnings.unknownScopes(missing);
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
    },
  };
}
