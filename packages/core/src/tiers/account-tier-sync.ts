/**
 * Keeps the owner's account tier recorded with their keys, so that verification can cap a key at
 * its owner's current tier from the record it already reads: no lookup per request.
 *
 * Keyward learns an account's tier from the sessions it sees (its JWTs' claims), from
 * `keys.create`, and from `keys.setAccountTier`, which a billing system calls when a plan changes.
 * Writing the tier changes the owner's key records, and the verification cache evicts them on every
 * instance the way it does for a revocation, so a downgrade reaches every instance within the same
 * bound.
 */
import { expiringLru } from "../cache/expiring-lru.js";
import type { Clock } from "../clock.js";
import { type Owner, ownerLabel } from "../keys/owner.js";
import type { KeyStore } from "../storage/key-store.js";

export interface AccountTierSync {
  /**
   * Records `tier` on the owner's keys now and resolves when written. For key management, where
   * one conditional write per call is cheap and the next step depends on it.
   */
  record(owner: Owner, tier: string): Promise<void>;
  /**
   * The same for the request path (a session on a host route): written in the background, and
   * skipped while this instance wrote the same tier for the owner less than `recheckMs` ago.
   * Failures go to `onError`; the request is not held up.
   */
  notice(owner: Owner, tier: string): void;
}

export interface AccountTierSyncOptions {
  clock: Clock;
  onError(error: unknown): void;
  /**
   * How long a tier written by this instance is trusted before a session may write it again. Another
   * instance may have recorded a different tier meanwhile; this bounds how long that goes unnoticed
   * here. Default 30 s, the verification cache's own safety bound.
   */
  recheckMs?: number;
  /** Owners remembered; default 10,000. */
  maxOwners?: number;
}

export function accountTierSync(keys: KeyStore, options: AccountTierSyncOptions): AccountTierSync {
  const { clock, onError } = options;
  const recheckMs = options.recheckMs ?? 30_000;
  const written = expiringLru<string>(options.maxOwners ?? 10_000);
  /** The tier being written per owner, so a burst of sessions costs one write. */
  const pending = new Map<string, string>();

  const record = async (owner: Owner, tier: string) => {
    await keys.setOwnerTier(owner, tier);
    written.set(ownerLabel(owner), tier, clock.now() + recheckMs);
  };

  return {
    record,
    notice(owner, tier) {
      const label = ownerLabel(owner);
      if (written.get(label, clock.now()) === tier || pending.get(label) === tier) return;
      pending.set(label, tier);
      record(owner, tier)
        .catch(onError)
        .finally(() => {
          if (pending.get(label) === tier) pending.delete(label);
        });
    },
  };
}
