/**
 * The API key format: `prefix` + 30 random base62 characters (≈178 bits) + 6 base62 characters of a
 * CRC32 checksum of the random part, e.g. `sk_live_` + 36 characters = 44 in all.
 * `parse` runs on every request, so it reads the token in place and allocates only on success.
 */
import { cryptoRandom, type RandomSource } from "../random.js";
import { randomBase62 } from "./base62.js";
import { CHECKSUM_LENGTH, checksumMatches, keyChecksum } from "./checksum.js";

export const DEFAULT_KEY_PREFIX = "sk_live_";
/** 30 × log2(62) ≈ 178.6 bits of CSPRNG output. */
export const KEY_RANDOM_LENGTH = 30;
/** Characters of the key shown in a hint; all four fall inside the checksum. */
const HINT_LENGTH = 4;

/**
 * Lowercase letters, digits and underscores, ending with `_`, 1–32 characters. The `_` cannot occur
 * in the base62 body, so the prefix boundary is unambiguous; and a prefix cannot start with `eyJ`,
 * so it never collides with a JWT.
 */
const PREFIX_PATTERN = /^[a-z0-9_]{0,31}_$/;

/** A token that has the key's shape and a correct checksum. Says nothing about whether it exists. */
export interface ParsedKey {
  /** The whole token: the secret that gets hashed for lookup. */
  readonly token: string;
  readonly prefix: string;
  /** The 30 random characters. */
  readonly random: string;
  /** The 6 checksum characters. */
  readonly checksum: string;
}

export interface KeyFormatOptions {
  /** Default `sk_live_`. Lowercase letters, digits and `_`, ending with `_`, at most 32 characters. */
  prefix?: string;
  /** Default: the platform CSPRNG. Inject a deterministic source in tests only. */
  random?: RandomSource;
}

export interface KeyFormat {
  readonly prefix: string;
  /** Length of every key of this format: prefix + 36. */
  readonly length: number;
  /** A fresh key. Show it to its owner once; store only its hash. */
  generate(): string;
  /** The key's parts, or `null` for a wrong length, wrong prefix, non-base62 body or bad checksum. */
  parse(token: string): ParsedKey | null;
  /** `parse(token) !== null`, without allocating: the check verification runs on every request. */
  isWellFormed(token: string): boolean;
  /** Whether the token starts with this format's prefix: the cheap "API key, not JWT" test. */
  isKeyShaped(token: string): boolean;
  /** `prefix…` + the key's last 4 characters, safe to store and display. Throws for a non-key. */
  hint(token: string): string;
}

/** Whether `token` starts with `prefix`: enough to tell an API key from a JWT (`eyJ…`). */
export function isKeyShaped(token: string, prefix: string): boolean {
  return typeof token === "string" && token.startsWith(prefix);
}

/**
 * @example
 * const keys = createKeyFormat({ prefix: "sk_test_" });
 * const token = keys.generate(); // "sk_test_" + 36 base62 characters
 * keys.parse(token)?.random;     // the 30 random characters
 * keys.parse("sk_test_oops");    // null, without touching storage
 * keys.hint(token);              // "sk_test_…" + last 4 characters
 */
export function createKeyFormat({
  prefix = DEFAULT_KEY_PREFIX,
  random = cryptoRandom,
}: KeyFormatOptions = {}): KeyFormat {
  if (typeof prefix !== "string" || !PREFIX_PATTERN.test(prefix)) {
    throw new TypeError(
      `Invalid key prefix ${JSON.stringify(prefix)}: use 1–32 lowercase letters, digits or "_", ending with "_" (e.g. "sk_live_")`,
    );
  }
  const randomStart = prefix.length;
  const randomEnd = randomStart + KEY_RANDOM_LENGTH;
  const length = randomEnd + CHECKSUM_LENGTH;

  // Also rejects any non-base62 character, in the random part or the checksum.
  const isWellFormed = (token: string): boolean =>
    typeof token === "string" &&
    token.length === length &&
    token.startsWith(prefix) &&
    checksumMatches(token, randomStart, randomEnd);

  function parse(token: string): ParsedKey | null {
    if (!isWellFormed(token)) return null;
    return {
      token,
      prefix,
      random: token.slice(randomStart, randomEnd),
      checksum: token.slice(randomEnd),
    };
  }

  return {
    prefix,
    length,
    generate() {
      const body = randomBase62(KEY_RANDOM_LENGTH, random);
      return prefix + body + keyChecksum(body);
    },
    parse,
    isWellFormed,
    isKeyShaped: (token) => isKeyShaped(token, prefix),
    hint(token) {
      if (!isWellFormed(token)) {
        throw new TypeError(`hint() expects a valid ${prefix} key`);
      }
      return `${prefix}…${token.slice(-HINT_LENGTH)}`;
    },
  };
}
