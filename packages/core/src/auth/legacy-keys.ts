/**
 * Keys in another format than Keyward's: secrets another system issued, imported with their
 * hashes (the `imports()` feature fills this point, `imports/legacy-lookup.ts`). `verify` asks it
 * only about a token that is not a well-formed Keyward key, so a Keyward key costs nothing more,
 * and hands such a token to it with the kernel's own steps (`LegacyVerifyKit`): how the token is
 * looked up is the feature's, how a found key is admitted is the kernel's.
 */

import type { StoredKey } from "../storage/key-store.js";
import type { Pending } from "./pending-verify.js";
import type { VerifyOptions, VerifyResult } from "./principal.js";

export interface LegacyKeyLookup {
  /**
   * Whether `token`, which is not a well-formed Keyward key, may be an imported one: a test of its
   * shape alone (its prefix, its characters), no hash and no I/O. A token it refuses goes on as
   * before (a JWT, or an invalid key).
   * @param keyShaped the token begins with one of Keyward's own prefixes (a mistyped Keyward key,
   *   most often): taken only where an imported format says it has that prefix
   */
  accepts(token: string, keyShaped: boolean): boolean;
  /**
   * Verifies a token `accepts` took, through the kernel's steps. May throw or reject: `verify`
   * turns either into its failure, as for any key.
   * @param secretHash Keyward's hash of the token, when `verify` has it already
   */
  verify(
    token: string,
    options: VerifyOptions,
    kit: LegacyVerifyKit,
    secretHash?: string,
  ): Pending<VerifyResult>;
}

/** The kernel's steps a legacy lookup verifies with. */
export interface LegacyVerifyKit {
  /** Keyward's own hash of a token. */
  hash(token: string): string;
  /** The key the store holds under `hash` without I/O (null: none), or undefined: ask `find`. */
  peek(hash: string): StoredKey | null | undefined;
  /**
   * The key stored under `hash`, or null: without I/O where the store can answer so (a memory
   * store, a cached key). With `charged`, a lookup that reaches the store counts against the client
   * address's budget for unknown keys, and may answer that budget's refusal instead.
   */
  find(
    hash: string,
    options: VerifyOptions,
    charged: boolean,
  ): Pending<StoredKey | null | VerifyResult>;
  /** A found key (or null: refused) checked, limited and counted as every key is. */
  admit(key: StoredKey | null, hash: string, options: VerifyOptions): Pending<VerifyResult>;
  /** Swaps a key's hash `from` for `to` (compare-and-set); undefined: the store cannot. */
  rehash(key: StoredKey, from: string, to: string): Promise<unknown> | undefined;
  /** Reports a failure through the instance's logger (repeats filtered). */
  report(message: string, cause: unknown): void;
}
