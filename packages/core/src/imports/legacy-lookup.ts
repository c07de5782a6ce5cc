/**
 * How `verify` finds an imported key by a token in its own format (the kernel's `legacyKeys`
 * point): which tokens may be one, and the hashes the other system gave them.
 */
import type { LegacyKeyLookup } from "../auth/legacy-keys.js";
import { createSecretHasher, type SecretHasher } from "../keys/hash.js";
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
 * any prefix but Keyward's own), is of a plausible length, and holds only printable ASCII and no "." (so it is never a
 * JWT, whose three parts "." separates).
 */
export function legacyKeyLookup(config: ImportsConfig, hashers: LegacyHashers): LegacyKeyLookup {
  const prefixes = config.prefixes;
  const peppered = [...hashers.peppered.values()];
  return {
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
    hashes(token) {
      if (peppered.length === 0) return [hashers.sha256.hash(token)];
      return [hashers.sha256.hash(token), ...peppered.map((hasher) => hasher.hash(token))];
    },
  };
}
