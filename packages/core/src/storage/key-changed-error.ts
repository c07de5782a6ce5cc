/**
 * A store's answer to a limit call made with a key record that has changed since it was read: the
 * request was verified with the old record (its scopes, allowlist, limits, tier), so the store
 * spent nothing and tells `verify`, which checks and charges the request once more with `current`,
 * the record as it is now (null: no longer stored). A store that checks at its limit step which
 * version of a key a request was verified with (`@keyward/cloudflare`, whose isolates verify from
 * a cache that other isolates' changes do not reach) rejects `consume` or `consumeLayers` with it.
 *
 * Only once per request: a second change met on the retry fails the request (500), as any store
 * failure does.
 */
import type { StoredKey } from "./key-store.js";

export class KeyChangedError extends Error {
  override readonly name = "KeyChangedError";
  /** The key's record now, which the retry is checked and charged with; null when none. */
  readonly current: StoredKey | null;

  constructor(current: StoredKey | null) {
    super("the key changed after the record this request was verified with was read");
    this.current = current;
  }
}
