/**
 * The key checksum: CRC32 (IEEE 802.3, the polynomial of zlib, gzip and PNG) of the random part,
 * written as 6 base62 characters. It catches typos and truncation before any storage lookup; it is
 * not a MAC and proves nothing about who made the key.
 */
import { base62Digit, decodeBase62Fixed, encodeBase62Fixed } from "./base62.js";

/** 62^6 ≈ 5.7e10 > 2^32, so every CRC32 value fits in six characters. */
export const CHECKSUM_LENGTH = 6;

// Int32Array, not Uint32Array: entries above 2^31 would push V8 into float arithmetic in the loop.
const CRC32_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/**
 * CRC32 of the characters `text[start, end)` if all are base62, else -1. One pass both validates
 * and checksums, in place: base62 is ASCII, so the char codes are the UTF-8 bytes and this equals
 * the CRC32 of the encoded text (zlib's, checked in the tests).
 */
export function crc32Base62(text: string, start = 0, end = text.length): number {
  let crc = -1;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (base62Digit(code) < 0) return -1;
    crc = CRC32_TABLE[(crc ^ code) & 0xff]! ^ (crc >>> 8);
  }
  return ~crc >>> 0;
}

/**
 * The six-character checksum of a key's random part.
 *
 * @example
 * keyChecksum("0123456789ABCDEFGHIJKLMNOPQRST"); // "4PMbyp"
 */
export function keyChecksum(randomPart: string): string {
  const crc = crc32Base62(randomPart);
  if (crc < 0) throw new RangeError("keyChecksum: the random part is not base62");
  return encodeBase62Fixed(crc, CHECKSUM_LENGTH);
}

/**
 * Whether `text[randomStart, randomEnd)` is base62 and `text[randomEnd, randomEnd + 6)` is its
 * checksum. Reads in place and allocates nothing, for the per-request parse.
 */
export function checksumMatches(text: string, randomStart: number, randomEnd: number): boolean {
  const crc = crc32Base62(text, randomStart, randomEnd);
  return crc >= 0 && decodeBase62Fixed(text, randomEnd, CHECKSUM_LENGTH) === crc;
}
