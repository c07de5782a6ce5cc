/**
 * How `verify` finds an imported key by a token in its own format (a resolver at `verify`'s phase
 * "resolve", `auth/key-resolvers.ts`): which tokens may be one, the hashes the other system gave
 * them, and the lookup under those hashes, then Keyward's own, with the kernel's steps. The key it
 * finds is admitted by the kernel as any key is.
 */
import type { KeyResolver, ResolvedKey, ResolveKit } from "../../auth/key-resolvers.js";
import type { VerifyOptions, VerifyResult } from "../../auth/principal.js";
import { createSecretHasher, type SecretHasher } from "../../keys/hash.js";
import { type ImportsConfig, legacyTokenLength } from "./imports-config.js";

/** The other systems' hashes of one token, by how imported records name them. */
export interface LegacyHashers {
  /** Plain SHA-256, lowercase hex: the digest every supported encoding decodes to. */
  sha256: SecretHasher;
  /** HMAC-SHA-256 by pepper name (`ImportsConfig.peppers`). */
  peppered: ReadonlyMap<string, SecretHasher>;
}

export function legacyHashers(config: ImportsConfig): LegacyHashers {
  const peppered = new Map<string, SecretHasher>();
  for (const [name, pepper] of Object.entries(config.peppers ?? {})) {
    peppered.set(name, createSecretHasher({ pepper }));
  }
  return { sha256: createSecretHasher(), peppered };
}

/**
 * A token is taken for an imported key when it has one of the configured prefixes (without them,
 * any prefix but Keyward's own), is of a plausible length, and holds only printable ASCII and no
 * "." (so it is never a JWT, whose three parts "." separates).
 */
export function legacyKeyLookup(config: ImportsConfig, hashers: LegacyHashers): KeyResolver {
  const prefixes = config.prefixes;
  const peppered = [...hashers.peppered.values()];
  return {
    name: "imported-keys",
    accepts(token, keyShaped) {
      if (token.length < legacyTokenLength.min || token.length > legacyTokenLength.max) {
        return false;
      }
      // A mistyped Keyward key is refused as cheaply as ever, unless a format claims its prefix.
      if (
        prefixes === undefined ? keyShaped : !prefixes.some((prefix) => token.startsWith(prefix))
      ) {
        return false;
      }
      for (let i = 0; i < token.length; i++) {
        const code = token.charCodeAt(i);
        if (code < 0x21 || code > 0x7e || code === 0x2e) return false;
      }
      return true;
    },
    resolve(token, options, kit, secretHash = kit.hash(token)) {
      // A key imported from its plaintext, or already rehashed, held without I/O (memory, cache).
      const known = kit.peek(secretHash);
      if (known) return { key: known, hash: secretHash };
      const hashes = [hashers.sha256.hash(token), ...peppered.map((hasher) => hasher.hash(token))];
      return findImported(hashes, secretHash, options, kit).then((found) => {
        if ("ok" in found) return found;
        // Rehashed to Keyward's hash in the background: its next request is found as a native
        // key's is. A failure is only reported; it is tried again on the key's next use.
        if (found.key !== null && found.hash !== secretHash) {
          kit.rehash(found.key, found.hash, secretHash)?.catch((error: unknown) => {
            kit.report(
              "rehashing an imported key failed; it is tried again on its next use",
              error,
            );
          });
        }
        return found;
      });
    },
  };
}

/**
 * The key under the other system's hashes of the token, then under Keyward's own (a key imported
 * from its plaintext, or already rehashed): the first lookup charged to the client address's
 * budget for unknown keys, as a native key's one lookup is.
 */
async function findImported(
  hashes: readonly string[],
  secretHash: string,
  options: VerifyOptions,
  kit: ResolveKit,
): Promise<ResolvedKey | VerifyResult> {
  const candidates = [...hashes.filter((hash) => hash !== secretHash), secretHash];
  for (const [i, hash] of candidates.entries()) {
    const key = await kit.find(hash, options, i === 0);
    if (key !== null && "ok" in key) return key;
    if (key !== null) return { key, hash };
  }
  return { key: null, hash: secretHash };
}
