/** The refusals key management shares between its operations. */
import { KeywardError } from "../../errors/keyward-error.js";
import type { KeywardContext } from "../../keyward/context.js";
import type { StoredKey } from "../../storage/key-store.js";
import { keyStatus } from "../key-record.js";

/** A programming error in the host's call, not a request error: it is not turned into a 500. */
export class MisuseError extends TypeError {}

export function notOwnerError(): KeywardError {
  return new KeywardError("not_owner", "Not permitted to access this API key");
}

export function revokedError(): KeywardError {
  return new KeywardError("key_gone", "API key has been revoked");
}

export function keyNotFoundError(): KeywardError {
  return new KeywardError("key_not_found", "API key not found");
}

export function preconditionFailedError(): KeywardError {
  return new KeywardError(
    "precondition_failed",
    "The API key has changed since the version If-Match names; nothing was changed",
  );
}

/** 410 for a key that is revoked or expired at `now`: nothing more happens to it. */
export function refuseIfGone(key: StoredKey, now: number): void {
  const status = keyStatus(key, now);
  if (status === "revoked") throw revokedError();
  if (status === "expired") throw new KeywardError("key_gone", "API key has expired");
}

/**
 * 403 for a key on a tier above the account tier that caps it (`accountTier`; undefined: no cap
 * known). A key on a tier no longer configured ranks lowest (it runs at the lowest tier).
 */
export function refuseTierAboveAccount(
  ctx: Pick<KeywardContext, "tiers">,
  key: StoredKey,
  accountTier: string | undefined,
): void {
  if (accountTier === undefined) return;
  const resolved = ctx.tiers.resolveAccountTier(accountTier);
  if (ctx.tiers.rank(key.tier) > ctx.tiers.rank(resolved)) {
    throw new KeywardError(
      "tier_not_allowed",
      `Tier '${key.tier}' is above the account's tier '${resolved}'`,
    );
  }
}
