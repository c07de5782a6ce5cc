import { keyStatus } from "../../api/key-record.js";
import { KeywardError } from "../../errors/keyward-error.js";
import type { BeforeCreate } from "../../keys/write-hooks.js";
import type { StoredKey } from "../../storage/key-store.js";

/**
 * `lifecycle({ maxKeysPerOwner })`: a create for an owner who already holds that many live keys
 * (neither revoked nor expired; disabled ones count) is refused with 409 `too_many_keys`.
 *
 * The count is read, then the key written: two creates racing for the last place can both pass.
 * The bound is a quota against runaway scripts, not a security boundary, so this is documented
 * rather than paid for with a lock on every create.
 */
export function keyLimitHook(max: number): BeforeCreate {
  return {
    name: "max-keys-per-owner",
    answers: ["too_many_keys"],
    policy: { maxLiveKeys: max },
    async run({ owner }, { keys, clock }) {
      const now = clock.now();
      const live = keys.countLiveByOwner
        ? await keys.countLiveByOwner(owner, now)
        : countLive(await keys.listByOwner(owner), now);
      if (live >= max) {
        throw new KeywardError(
          "too_many_keys",
          `The owner already has ${max} keys, the most allowed; revoke one before creating another`,
        );
      }
      return undefined;
    },
  };
}

/** The keys neither revoked nor expired at `now`: what `KeyStore.countLiveByOwner` answers. */
function countLive(keys: readonly StoredKey[], now: number): number {
  let live = 0;
  for (const key of keys) {
    const status = keyStatus(key, now);
    if (status !== "revoked" && status !== "expired") live++;
  }
  return live;
}
