import { crc32 as zlibCrc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { cryptoRandom } from "../random.js";
import { randomBase62 } from "./base62.js";
import { CHECKSUM_LENGTH, checksumMatches, crc32Base62, keyChecksum } from "./checksum.js";

describe("crc32Base62", () => {
  it("matches the standard check values", () => {
    expect(crc32Base62("123456789")).toBe(0xcbf43926);
    expect(crc32Base62("")).toBe(0);
    expect(crc32Base62("Thequickbrownfoxjumpsoverthelazydog")).toBe(
      zlibCrc32("Thequickbrownfoxjumpsoverthelazydog"),
    );
  });

  it("equals crc32 of the ASCII bytes, read in place", () => {
    for (let i = 0; i < 200; i++) {
      const text = randomBase62(i, cryptoRandom);
      expect(crc32Base62(text)).toBe(zlibCrc32(text));
      expect(crc32Base62(`__${text}__`, 2, 2 + i)).toBe(zlibCrc32(text));
    }
  });

  it("is -1 when any character is not base62", () => {
    for (const bad of ["-", "_", "+", "/", "=", " ", "\0", "é", "😀", "\u0130"]) {
      expect(crc32Base62(`abc${bad}def`)).toBe(-1);
    }
  });
});

describe("keyChecksum", () => {
  it("is six base62 characters", () => {
    expect(CHECKSUM_LENGTH).toBe(6);
    expect(keyChecksum("0123456789ABCDEFGHIJKLMNOPQRST")).toBe("4PMbyp");
    for (let i = 0; i < 100; i++) {
      expect(keyChecksum(randomBase62(30, cryptoRandom))).toMatch(/^[0-9A-Za-z]{6}$/);
    }
  });

  it("refuses a non-base62 random part", () => {
    expect(() => keyChecksum("abc_def")).toThrow(RangeError);
  });
});

describe("checksumMatches", () => {
  it("checks the six characters after the random part", () => {
    const random = randomBase62(30, cryptoRandom);
    const text = `pk_${random}${keyChecksum(random)}`;
    expect(checksumMatches(text, 3, 33)).toBe(true);
    expect(checksumMatches(`${text}x`, 3, 33)).toBe(true); // trailing text is the caller's concern
    expect(checksumMatches(text.slice(0, -1), 3, 33)).toBe(false);
    expect(checksumMatches(`${text.slice(0, -1)}-`, 3, 33)).toBe(false);
  });
});
