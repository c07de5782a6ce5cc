/**
 * `verify`'s phase "resolve": from a token to the stored key it stands for. Keyward's own format
 * is resolved first, by the runner itself (its hash, the store's `peek`, then its lookup), so a
 * Keyward key costs nothing more for any resolver listed. A token that is not a well-formed Keyward
 * key goes to the listed resolvers in order, and the first that `accepts` it resolves it (the
 * `imports()` feature's resolver finds imported keys under the hashes another system gave them,
 * `imports/legacy-lookup.ts`). The key a resolver finds is then admitted by the runner as every
 * key is: checked, charged and counted; how a token is looked up is the resolver's, how a key is
 * admitted is the kernel's.
 */

import type { StoredKey } from "../storage/key-store.js";
import type { Pending } from "./pending-verify.js";
import type { VerifyOptions, VerifyResult } from "./principal.js";

export interface KeyResolver {
  /** What it resolves, for a reader of the list: `"imported-keys"`. */
  readonly name: string;
  /**
   * Whether `token`, which is not a well-formed Keyward key, may be one this resolver knows: a test
   * of its shape alone (its prefix, its characters), no hash and no I/O. A token no resolver
   * accepts goes on as before (a JWT, or an invalid key).
   * @param keyShaped the token begins with one of Keyward's own prefixes (a mistyped Keyward key,
   *   most often): to be taken only where the resolver's format says it has that prefix
   */
  accepts(token: string, keyShaped: boolean): boolean;
  /**
   * The key `token` stands for and the hash it was found under (`key: null`: none), or a refusal
   * met on the way (`kit.find`'s, when the client address has no lookups left). May throw or
   * reject: `verify` turns either into its failure, as for any key.
   * @param secretHash Keyward's hash of the token, when `verify` has it already
   */
  resolve(
    token: string,
    options: VerifyOptions,
    kit: ResolveKit,
    secretHash?: string,
  ): Pending<ResolvedKey | VerifyResult>;
}

/** A resolver's answer: the key found (null: none) and the hash it is stored under. */
export interface ResolvedKey {
  key: StoredKey | null;
  hash: string;
}

/** The kernel's steps a resolver looks keys up with. */
export interface ResolveKit {
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
  /** Swaps a key's hash `from` for `to` (compare-and-set); undefined: the store cannot. */
  rehash(key: StoredKey, from: string, to: string): Promise<unknown> | undefined;
  /** Reports a failure through the instance's logger (repeats filtered). */
  report(message: string, cause: unknown): void;
}

/** Whether a resolver answered with a refusal rather than a key. */
export function isRefusal(resolved: ResolvedKey | VerifyResult): resolved is VerifyResult {
  return "ok" in resolved;
}
