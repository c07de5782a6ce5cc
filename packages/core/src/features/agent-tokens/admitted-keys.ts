/**
 * The stored key `verify` admitted for an exchange, as the runner found it: a `check` step that
 * refuses nothing and, for the exchange's own `verify` call (known by its options object), keeps
 * the record. The exchange then needs no lookup of its own, and knows the secret the bearer is by
 * the very record it was admitted against: a key `imports()` brought in is found under the other
 * system's hash until its rehash to Keyward's lands, after the request that caused it.
 */
import type { KeyCheck } from "../../auth/key-checks.js";
import type { VerifyOptions } from "../../auth/principal.js";
import type { StoredKey } from "../../storage/key-store.js";

export interface AdmittedKeys {
  /** Listed in `verify`'s `check` phase. */
  readonly step: KeyCheck;
  /** Starts keeping the key admitted for `options` (one `verify` call's own object). */
  watch(options: VerifyOptions): { admitted(): StoredKey | undefined; stop(): void };
}

export function admittedKeys(): AdmittedKeys {
  const watched = new WeakMap<object, { key?: StoredKey }>();
  return {
    step: {
      name: "agent-token-exchange",
      check(key, options) {
        const entry = watched.get(options);
        if (entry !== undefined) entry.key = key;
        return undefined;
      },
    },
    watch(options) {
      const entry: { key?: StoredKey } = {};
      watched.set(options, entry);
      return { admitted: () => entry.key, stop: () => watched.delete(options) };
    },
  };
}
