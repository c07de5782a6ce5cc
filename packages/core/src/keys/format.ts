/**
 * The API key format: `prefix` + 30 random base62 characters (≈178 bits) + 6 base62 characters of a
 * CRC32 checksum of the random part, e.g. `sk_live_` + 36 characters = 44 in all. One format may
 * accept several prefixes (one per environment: `sk_live_`, `sk_test_`); none may start another,
 * so a token names at most one. `parse` runs on every request, so it reads the token in place and
 * allocates only on success.
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
  /**
   * Several prefixes instead of one (`prefix` is then left out): keys with any of them parse, and
   * `generate` makes keys with the first unless told another. No prefix may start another one.
   */
  prefixes?: readonly string[];
  /** Default: the platform CSPRNG. Inject a deterministic source in tests only. */
  random?: RandomSource;
}

export interface KeyFormat {
  /** The prefix `generate` uses by default: the only one, or the first of `prefixes`. */
  readonly prefix: string;
  /** Every prefix a key of this format may have, the default first. */
  readonly prefixes: readonly string[];
  /** Length of every key with the default prefix: prefix + 36. */
  readonly length: number;
  /**
   * A fresh key with `prefix` (one of `prefixes`; default the first). Show it to its owner once;
   * store only its hash.
   */
  generate(prefix?: string): string;
  /** The key's parts, or `null` for a wrong length, wrong prefix, non-base62 body or bad checksum. */
  parse(token: string): ParsedKey | null;
  /** `parse(token) !== null`, without allocating: the check verification runs on every request. */
  isWellFormed(token: string): boolean;
  /** Whether the token starts with one of this format's prefixes: the cheap "API key, not JWT" test. */
  isKeyShaped(token: string): boolean;
  /** Which of the prefixes the token starts with, or undefined. Checks nothing else. */
  prefixOf(token: string): string | undefined;
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
  prefix,
  prefixes,
  random = cryptoRandom,
}: KeyFormatOptions = {}): KeyFormat {
  const all = checkPrefixes(prefix, prefixes);
  const byPrefix = new Map(all.map((one) => [one, singlePrefixFormat(one, random)]));
  const first = byPrefix.get(all[0]!)!;
  // One prefix, the common case: that format's own checks, with no search among prefixes.
  if (all.length === 1) return first;

  // Two arrays, indexed: on every request, a loop over the Map's entries would take an iterator
  // and an entry pair per prefix tried.
  const formats = all.map((one) => byPrefix.get(one)!);
  const formatOf = (token: string): KeyFormat | undefined => {
    if (typeof token !== "string") return undefined;
    for (let index = 0; index < all.length; index++) {
      if (token.startsWith(all[index]!)) return formats[index];
    }
    return undefined;
  };
  return {
    prefix: first.prefix,
    prefixes: all,
    length: first.length,
    generate(chosen = first.prefix) {
      const format = byPrefix.get(chosen);
      if (!format) {
        throw new TypeError(
          `generate(): ${JSON.stringify(chosen)} is not one of this format's prefixes (${all.join(", ")})`,
        );
      }
      return format.generate();
    },
    parse: (token) => formatOf(token)?.parse(token) ?? null,
    isWellFormed: (token) => formatOf(token)?.isWellFormed(token) ?? false,
    isKeyShaped: (token) => formatOf(token) !== undefined,
    prefixOf: (token) => formatOf(token)?.prefix,
    hint(token) {
      const format = formatOf(token);
      if (!format) throw new TypeError(`hint() expects a valid ${all.join(" or ")} key`);
      return format.hint(token);
    },
  };
}

/**
 * The prefixes a format accepts, each checked, none starting another: with `sk_` and `sk_live_`
 * both configured, `sk_live_…` would be claimed by both the first time a check looks only at the
 * start of a token.
 */
function checkPrefixes(
  prefix: string | undefined,
  prefixes: readonly string[] | undefined,
): readonly string[] {
  if (prefix !== undefined && prefixes !== undefined) {
    throw new TypeError("createKeyFormat takes `prefix` or `prefixes`, not both");
  }
  if (prefixes !== undefined && (!Array.isArray(prefixes) || prefixes.length === 0)) {
    throw new TypeError('Key prefixes must be a non-empty list, e.g. ["sk_live_", "sk_test_"]');
  }
  const all: readonly string[] = prefixes ?? [prefix ?? DEFAULT_KEY_PREFIX];
  for (const candidate of all) {
    if (typeof candidate !== "string" || !PREFIX_PATTERN.test(candidate)) {
      throw new TypeError(
        `Invalid key prefix ${JSON.stringify(candidate)}: use 1–32 lowercase letters, digits or "_", ending with "_" (e.g. "sk_live_")`,
      );
    }
  }
  for (const [i, one] of all.entries()) {
    for (const [j, other] of all.entries()) {
      if (i !== j && other.startsWith(one)) {
        throw new TypeError(
          one === other
            ? `Key prefix ${JSON.stringify(one)} is listed twice: each prefix must be unique`
            : `Key prefix ${JSON.stringify(one)} starts ${JSON.stringify(other)}, so a key could not say which it has: make neither start the other (e.g. "sk_live_" and "sk_test_")`,
        );
      }
    }
  }
  return Object.freeze([...all]);
}

function singlePrefixFormat(prefix: string, random: RandomSource): KeyFormat {
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
    prefixes: [prefix],
    length,
    generate(chosen = prefix) {
      if (chosen !== prefix) {
        throw new TypeError(`generate(): this format's prefix is ${prefix}, not ${chosen}`);
      }
      const body = randomBase62(KEY_RANDOM_LENGTH, random);
      return prefix + body + keyChecksum(body);
    },
    parse,
    isWellFormed,
    isKeyShaped: (token) => isKeyShaped(token, prefix),
    prefixOf: (token) => (isKeyShaped(token, prefix) ? prefix : undefined),
    hint(token) {
      if (!isWellFormed(token)) {
        throw new TypeError(`hint() expects a valid ${prefix} key`);
      }
      return `${prefix}…${token.slice(-HINT_LENGTH)}`;
    },
  };
}
