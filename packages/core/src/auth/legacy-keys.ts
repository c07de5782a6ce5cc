/**
 * Keys in another format than Keyward's: secrets another system issued, imported with their
 * hashes (the `imports()` feature fills this point). `verify` asks it only about a token that is
 * not a well-formed Keyward key, so a Keyward key costs nothing more; such a token costs one more
 * hash (per hash the lookup names) and is looked up under those hashes before Keyward's own.
 */
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
   * The hashes an imported key's record may hold for `token` until its first use, in lookup order.
   * Keyward's own hash is looked up after them: a key found by one of these is rehashed to it.
   */
  hashes(token: string): readonly string[];
}
