/**
 * What a limit call refused as stale means for the request: the key changed after this isolate
 * read the record it verified with, so the request is not admitted on that record. Where the new
 * record refuses it for certain (revoked, disabled, expired, or neither of the secrets the old
 * record accepted still works), the answer is the 401 a verification with the new record gives,
 * in the same words. Otherwise (scopes, allowlist, limits or any other field changed) Keyward's
 * checks would have to run again on the new record, which a store cannot do: the request fails
 * as a store failure, and a retry, which reads the new record, is verified on it.
 */
import { KeywardError, type StoredKey } from "@keyward/core";
import { StoreUnavailableError } from "@keyward/core/toolkit";

export function staleKeyError(
  stale: StoredKey | undefined,
  fresh: StoredKey | null,
  now: number,
): Error {
  if (fresh === null || fresh.revokedAt !== null) {
    return new KeywardError("invalid_api_key", "API key has been revoked");
  }
  if (fresh.expiresAt !== null && fresh.expiresAt <= now) {
    return new KeywardError("invalid_api_key", "API key has expired");
  }
  if (fresh.disabledAt !== null) return new KeywardError("invalid_api_key", "API key is disabled");
  if (stale !== undefined && !stillAccepted(stale, fresh, now)) {
    return new KeywardError("invalid_api_key", "Invalid API key");
  }
  return new StoreUnavailableError(
    "unavailable",
    "Cloudflare",
    "the key changed after this isolate read it, so the request was not admitted on the old record; a retry is verified on the new one",
  );
}

/** Whether a secret the stale record accepted is still accepted by the fresh one. */
function stillAccepted(stale: StoredKey, fresh: StoredKey, now: number): boolean {
  const accepted = new Set([fresh.secretHash]);
  if (fresh.previousSecretHash !== null && now < (fresh.previousSecretExpiresAt ?? 0)) {
    accepted.add(fresh.previousSecretHash);
  }
  return (
    accepted.has(stale.secretHash) ||
    (stale.previousSecretHash !== null && accepted.has(stale.previousSecretHash))
  );
}
