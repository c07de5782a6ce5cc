/** `imports(config)`: what the feature is told about the keys it imports, checked when it is called. */

export interface ImportsConfig {
  /**
   * The prefixes imported tokens begin with (`"ba_"`, `"uk_live_"`). Given, only a token that
   * begins with one of them is looked up as an imported key; omitted, every token that is neither
   * a Keyward key nor JWT-shaped is (one more hash and lookup each, within the failed-lookup
   * budget), which is what keys imported without a prefix need.
   */
  prefixes?: readonly string[];
  /**
   * The peppers the other system keyed its hashes with (HMAC-SHA-256), by a name the imported
   * records give as `hash.pepper`. Each one is one more hash for every imported-format token until
   * its key is first used. Kept in your secrets, never in the database.
   */
  peppers?: Readonly<Record<string, string | Uint8Array>>;
}

/** A token's shortest and longest length taken for an imported key: a guard, not a format. */
export const legacyTokenLength = { min: 16, max: 512 } as const;

const prefixPattern = /^[\x21-\x7e]{1,64}$/;
const pepperNamePattern = /^[A-Za-z0-9_.-]{1,64}$/;

export function checkImportsConfig(config: ImportsConfig): void {
  if (typeof config !== "object" || config === null) {
    throw new TypeError(
      'imports(config): config must be an object, e.g. imports({ prefixes: ["ba_"] })',
    );
  }
  const { prefixes, peppers } = config;
  if (prefixes !== undefined) {
    if (!Array.isArray(prefixes) || prefixes.length === 0) {
      throw new TypeError('imports({ prefixes }): a non-empty list of prefixes, e.g. ["ba_"]');
    }
    for (const prefix of prefixes) {
      if (typeof prefix !== "string" || !prefixPattern.test(prefix) || prefix.includes(".")) {
        throw new TypeError(
          `imports({ prefixes }): ${JSON.stringify(prefix)} is not a token prefix: 1–64 printable characters, no space and no "."`,
        );
      }
    }
  }
  if (peppers !== undefined) {
    if (typeof peppers !== "object" || peppers === null || Array.isArray(peppers)) {
      throw new TypeError("imports({ peppers }): an object of pepper name → secret");
    }
    for (const [name, pepper] of Object.entries(peppers)) {
      if (!pepperNamePattern.test(name)) {
        throw new TypeError(
          `imports({ peppers }): the name ${JSON.stringify(name)} must be 1–64 letters, digits, "_", "." or "-"`,
        );
      }
      const empty =
        typeof pepper === "string"
          ? pepper.length === 0
          : !(pepper instanceof Uint8Array) || pepper.length === 0;
      if (empty) {
        throw new TypeError(
          `imports({ peppers }): the pepper ${JSON.stringify(name)} must be a non-empty string or Uint8Array`,
        );
      }
    }
  }
}
