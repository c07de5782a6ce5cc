import { describe, expect, it } from "vitest";
import type { RandomSource } from "../random.js";
import { cryptoRandom } from "../random.js";
import {
  BASE62_ALPHABET,
  base62Digit,
  decodeBase62Fixed,
  encodeBase62Fixed,
  randomBase62,
} from "./base62.js";

/** A reproducible byte stream (xorshift32); good enough statistically, and never flaky. */
function seededRandom(seed: number): RandomSource {
  let state = seed | 0 || 1;
  return {
    read(bytes) {
      for (let i = 0; i < bytes.length; i++) {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        bytes[i] = state & 0xff;
      }
    },
  };
}

/** Bytes from a fixed list, cycling. */
function bytesRandom(values: number[]): RandomSource {
  let next = 0;
  return {
    read(bytes) {
      for (let i = 0; i < bytes.length; i++) bytes[i] = values[next++ % values.length]!;
    },
  };
}

/** Pearson's chi-square statistic of character counts against a uniform distribution over 62. */
function chiSquare(text: string): { statistic: number; counts: Map<string, number> } {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  const expected = text.length / 62;
  let statistic = 0;
  for (const char of BASE62_ALPHABET)
    statistic += ((counts.get(char) ?? 0) - expected) ** 2 / expected;
  return { statistic, counts };
}

// 61 degrees of freedom: mean 61, and P(statistic > 150) ≈ 1e-9 for a uniform source.
const CHI_SQUARE_LIMIT = 150;
const SAMPLE = 62 * 2000;

describe("base62 alphabet", () => {
  it("is 0-9A-Za-z, and base62Digit inverts it", () => {
    expect(BASE62_ALPHABET).toBe("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
    for (let digit = 0; digit < 62; digit++) {
      expect(base62Digit(BASE62_ALPHABET.charCodeAt(digit))).toBe(digit);
    }
  });

  it("gives -1 for every other character code", () => {
    for (let code = 0; code < 0x3000; code++) {
      if (!BASE62_ALPHABET.includes(String.fromCharCode(code))) expect(base62Digit(code)).toBe(-1);
    }
    expect(base62Digit(Number.NaN)).toBe(-1);
  });
});

describe("randomBase62", () => {
  it("maps accepted bytes by value mod 62", () => {
    expect(randomBase62(62, bytesRandom([...Array(62).keys()]))).toBe(BASE62_ALPHABET);
    expect(randomBase62(4, bytesRandom([62, 123, 124, 247]))).toBe("0z0z");
  });

  it("throws away bytes 248–255 instead of letting them bias the first characters", () => {
    const stream = [248, 0, 249, 1, 250, 2, 251, 3, 252, 4, 253, 5, 254, 6, 255, 7];
    expect(randomBase62(8, bytesRandom(stream))).toBe("01234567");
  });

  it("reads again when a buffer runs out of accepted bytes", () => {
    // Only 1 byte in 16 is usable, far fewer than one buffer of 30 + 9 holds.
    const stream = [5, ...Array(15).fill(255)];
    expect(randomBase62(30, bytesRandom(stream))).toBe("5".repeat(30));
  });

  it("throws instead of spinning forever on a broken source", () => {
    expect(() => randomBase62(30, bytesRandom([255]))).toThrow(/broken/);
  });

  it("has the requested length and only base62 characters", () => {
    expect(randomBase62(0, cryptoRandom)).toBe("");
    for (const length of [1, 30, 100, 1000]) {
      expect(randomBase62(length, cryptoRandom)).toMatch(new RegExp(`^[0-9A-Za-z]{${length}}$`));
    }
    expect(() => randomBase62(-1, cryptoRandom)).toThrow(RangeError);
    expect(() => randomBase62(1.5, cryptoRandom)).toThrow(RangeError);
  });

  it("is uniform: chi-square over 124,000 characters, seeded", () => {
    const { statistic, counts } = chiSquare(randomBase62(SAMPLE, seededRandom(0x9e3779b9)));
    expect(counts.size).toBe(62);
    expect(statistic).toBeLessThan(CHI_SQUARE_LIMIT);
  });

  it("is uniform: chi-square over 124,000 characters, from the CSPRNG", () => {
    const { statistic, counts } = chiSquare(randomBase62(SAMPLE, cryptoRandom));
    expect(counts.size).toBe(62);
    expect(statistic).toBeLessThan(CHI_SQUARE_LIMIT);
  });

  it("(the uniformity check does catch modulo bias: plain byte % 62 fails it)", () => {
    const bytes = new Uint8Array(SAMPLE);
    seededRandom(0x9e3779b9).read(bytes);
    const biased = Array.from(bytes, (byte) => BASE62_ALPHABET[byte % 62]).join("");
    // "0"–"7" come up 5/256 of the time instead of 4/256: the statistic lands around 800.
    expect(chiSquare(biased).statistic).toBeGreaterThan(CHI_SQUARE_LIMIT * 3);
  });
});

describe("encodeBase62Fixed / decodeBase62Fixed", () => {
  it("writes most significant digit first, zero-padded to the width", () => {
    expect(encodeBase62Fixed(0, 6)).toBe("000000");
    expect(encodeBase62Fixed(61, 3)).toBe("00z");
    expect(encodeBase62Fixed(62, 3)).toBe("010");
    expect(encodeBase62Fixed(0xffffffff, 6)).toBe("4gfFC3");
    expect(encodeBase62Fixed(62 ** 6 - 1, 6)).toBe("zzzzzz");
  });

  it("round-trips", () => {
    for (const n of [0, 1, 61, 62, 3843, 3844, 2 ** 31, 0xffffffff, 62 ** 6 - 1]) {
      expect(decodeBase62Fixed(encodeBase62Fixed(n, 6))).toBe(n);
    }
    for (let i = 0; i < 1000; i++) {
      const n = Math.floor(Math.random() * 2 ** 32);
      expect(decodeBase62Fixed(encodeBase62Fixed(n, 6))).toBe(n);
    }
  });

  it("rejects numbers that do not fit", () => {
    expect(() => encodeBase62Fixed(62 ** 6, 6)).toThrow(RangeError);
    expect(() => encodeBase62Fixed(-1, 6)).toThrow(RangeError);
    expect(() => encodeBase62Fixed(1.5, 6)).toThrow(RangeError);
  });

  it("decodes in place and gives -1 for a non-base62 character or a range past the end", () => {
    expect(decodeBase62Fixed("xx00z", 2, 3)).toBe(61);
    expect(decodeBase62Fixed("00-", 0, 3)).toBe(-1);
    expect(decodeBase62Fixed("00é", 0, 3)).toBe(-1);
    expect(decodeBase62Fixed("000", 1, 3)).toBe(-1);
    expect(decodeBase62Fixed("000", -1, 2)).toBe(-1);
  });
});
