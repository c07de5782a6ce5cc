/**
 * Base62 (`0-9A-Za-z`): the alphabet of key secrets and checksums. It has no punctuation, so a key
 * survives double-click selection, URLs, shell quoting and `.env` files unescaped.
 */
import type { RandomSource } from "../random.js";

export const BASE62_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Digit value by char code (ASCII only); -1 for a character outside the alphabet. */
const DIGIT_BY_CHAR_CODE = new Int8Array(128).fill(-1);
for (let digit = 0; digit < BASE62_ALPHABET.length; digit++) {
  DIGIT_BY_CHAR_CODE[BASE62_ALPHABET.charCodeAt(digit)] = digit;
}

/** The value (0–61) of one base62 character given by its char code, or -1 if it is not one. */
export function base62Digit(charCode: number): number {
  return charCode < 128 ? DIGIT_BY_CHAR_CODE[charCode]! : -1;
}

/**
 * Bytes below 248 = 4 × 62 map onto the alphabet exactly four times each; bytes 248–255 would give
 * the first eight characters a 25% higher chance, so they are thrown away (rejection sampling).
 */
const ACCEPT_BELOW = 248;
const MAX_READ = 4096;
/** Refills in a row that yield no usable byte before the source is declared broken. */
const MAX_BARREN_REFILLS = 8;

/**
 * `length` uniformly random base62 characters, each carrying log2(62) ≈ 5.954 bits.
 *
 * Why not `generateRandomString` from `@oslojs/crypto/random` (issue 10 asked): it is uniform too,
 * but it calls `random.read` once per character on a one-byte buffer and builds a BigInt for each,
 * where this reads once per key on the hot path of `create` and `rotate`; it retries a rejected
 * byte without limit, so a broken source (one stuck on high bytes) hangs the process where this
 * throws (a test covers it); it leaves the bytes in memory, where this zeroes them; and it maps
 * bytes by masking to 6 bits instead of `% 62`, which would change every key the fixed test
 * vectors pin. Its `RandomReader` is the same one-method shape as our `RandomSource`, so a reader
 * written for oslo can be passed here unchanged.
 *
 * @example
 * randomBase62(30, cryptoRandom); // "q3Vd0yK..."
 */
export function randomBase62(length: number, random: RandomSource): string {
  if (!Number.isSafeInteger(length) || length < 0) {
    throw new RangeError(`randomBase62: length must be a non-negative integer, got ${length}`);
  }
  // About 1 byte in 32 is rejected; the slack makes a second read rare. The cap keeps long outputs
  // under getRandomValues' 65,536-byte limit per call: they just take several reads.
  const bytes = new Uint8Array(Math.min(length + (length >>> 4) + 8, MAX_READ));
  let out = "";
  let barrenRefills = 0;
  while (out.length < length) {
    random.read(bytes);
    const before = out.length;
    for (let i = 0; i < bytes.length && out.length < length; i++) {
      const byte = bytes[i]!;
      if (byte < ACCEPT_BELOW) out += BASE62_ALPHABET[byte % 62];
    }
    if (out.length > before) barrenRefills = 0;
    else if (++barrenRefills >= MAX_BARREN_REFILLS) {
      throw new Error("randomBase62: the random source returned only bytes >= 248; is it broken?");
    }
  }
  // The bytes are the secret in another form; do not leave them for the next heap reader.
  bytes.fill(0);
  return out;
}

/**
 * `n` as exactly `width` base62 digits, most significant first, left-padded with "0".
 *
 * @example
 * encodeBase62Fixed(61, 3); // "00z"
 */
export function encodeBase62Fixed(n: number, width: number): string {
  if (!Number.isSafeInteger(n) || n < 0 || n >= 62 ** width) {
    throw new RangeError(`encodeBase62Fixed: ${n} does not fit in ${width} base62 digits`);
  }
  let out = "";
  for (let i = 0; i < width; i++) {
    out = BASE62_ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/**
 * The number written by `width` base62 digits of `text` starting at `start` (the inverse of
 * `encodeBase62Fixed`), or -1 if any of them is not a base62 character or lies past the end.
 * Reads in place, so the key parser can check a checksum without cutting a substring.
 */
export function decodeBase62Fixed(text: string, start = 0, width = text.length - start): number {
  if (start < 0 || width < 0 || start + width > text.length) return -1;
  let n = 0;
  for (let i = start; i < start + width; i++) {
    const digit = base62Digit(text.charCodeAt(i));
    if (digit < 0) return -1;
    n = n * 62 + digit;
  }
  return n;
}
