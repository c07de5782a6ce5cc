import { describe, expect, it } from "vitest";
import type { RandomSource } from "../random.js";
import { BASE62_ALPHABET } from "./base62.js";
import { createKeyFormat, isKeyShaped, KEY_RANDOM_LENGTH } from "./format.js";

/** Bytes 0, 1, 2, … in order: the first key is "0123456789ABCDEFGHIJKLMNOPQRST" + checksum. */
function countingRandom(): RandomSource {
  let next = 0;
  return {
    read(bytes) {
      for (let i = 0; i < bytes.length; i++) bytes[i] = next++ % 248;
    },
  };
}

const KNOWN_KEY = "sk_live_0123456789ABCDEFGHIJKLMNOPQRST4PMbyp";
const keys = createKeyFormat();

/** Every string that differs from `token` in exactly one character, taken from `chars`. */
function* substitutions(token: string, from: number, to: number, chars: Iterable<string>) {
  for (let position = from; position < to; position++) {
    for (const char of chars) {
      if (char !== token[position]) {
        yield token.slice(0, position) + char + token.slice(position + 1);
      }
    }
  }
}

const NOT_BASE62 = ["_", "-", "+", "/", "=", ".", " ", "\0", "\n", "é", "😀", "\u0130", "\uff10"];
const PREFIX_CHARS = [...BASE62_ALPHABET, "_", "-"];

describe("createKeyFormat: generate", () => {
  it("produces a known key from a deterministic random source", () => {
    const format = createKeyFormat({ random: countingRandom() });
    expect(format.generate()).toBe(KNOWN_KEY);
    expect(format.parse(KNOWN_KEY)).toEqual({
      token: KNOWN_KEY,
      prefix: "sk_live_",
      random: "0123456789ABCDEFGHIJKLMNOPQRST",
      checksum: "4PMbyp",
    });
  });

  it("is prefix + 30 random + 6 checksum characters, and parses", () => {
    expect(keys.length).toBe(44);
    for (let i = 0; i < 200; i++) {
      const token = keys.generate();
      expect(token).toMatch(/^sk_live_[0-9A-Za-z]{36}$/);
      expect(keys.parse(token)?.random).toBe(token.slice(8, 38));
    }
  });

  it("gives distinct keys", () => {
    const seen = new Set(Array.from({ length: 1000 }, () => keys.generate()));
    expect(seen.size).toBe(1000);
  });

  it("uses the configured prefix", () => {
    const test = createKeyFormat({ prefix: "sk_test_" });
    const token = test.generate();
    expect(token).toMatch(/^sk_test_[0-9A-Za-z]{36}$/);
    expect(test.parse(token)?.prefix).toBe("sk_test_");
    expect(keys.parse(token)).toBeNull();
  });
});

describe("createKeyFormat: the checksum rejects every single-character change", () => {
  const samples = [KNOWN_KEY, ...Array.from({ length: 5 }, () => keys.generate())];

  it.each(samples)("%s: every body position × every other base62 character", (token) => {
    expect(keys.parse(token)).not.toBeNull();
    let tried = 0;
    for (const changed of substitutions(token, 8, token.length, BASE62_ALPHABET)) {
      expect(keys.parse(changed), changed).toBeNull();
      tried++;
    }
    expect(tried).toBe((KEY_RANDOM_LENGTH + 6) * 61);
  });

  it.each(samples)("%s: every prefix position changed", (token) => {
    for (const changed of substitutions(token, 0, 8, PREFIX_CHARS)) {
      expect(keys.parse(changed), changed).toBeNull();
    }
  });

  it.each(samples)("%s: every swap of two adjacent different characters", (token) => {
    for (let i = 8; i < token.length - 1; i++) {
      if (token[i] === token[i + 1]) continue;
      const swapped = token.slice(0, i) + token[i + 1] + token[i] + token.slice(i + 2);
      expect(keys.parse(swapped), swapped).toBeNull();
    }
  });
});

describe("createKeyFormat: parse rejects malformed tokens", () => {
  const token = keys.generate();

  it("of the wrong length", () => {
    for (let length = 0; length < token.length; length++) {
      expect(keys.parse(token.slice(0, length))).toBeNull();
    }
    expect(keys.parse(`${token}0`)).toBeNull();
    expect(keys.parse(`${token}${token}`)).toBeNull();
    expect(keys.parse(` ${token}`)).toBeNull();
  });

  it("with the wrong prefix", () => {
    for (const prefix of ["sk_test_", "SK_LIVE_", "sk-live_", "pk_live_", "eyJhbGci"]) {
      expect(keys.parse(prefix + token.slice(8))).toBeNull();
    }
  });

  it("with a non-base62 character anywhere in the body", () => {
    for (const changed of substitutions(token, 8, token.length, NOT_BASE62)) {
      expect(keys.parse(changed)).toBeNull();
    }
  });

  it("that are not strings", () => {
    for (const value of [undefined, null, 42, {}, [token]]) {
      expect(keys.parse(value as unknown as string)).toBeNull();
    }
  });
});

describe("createKeyFormat: prefix", () => {
  it("accepts lowercase letters, digits and underscores ending with _, up to 32", () => {
    for (const prefix of ["sk_live_", "sk_test_", "pk_", "_", "acme2_", `${"a".repeat(31)}_`]) {
      expect(createKeyFormat({ prefix }).prefix).toBe(prefix);
    }
  });

  it("throws a TypeError for anything else", () => {
    for (const prefix of [
      "",
      "sk_live",
      "SK_",
      "sk-live_",
      "sk live_",
      "é_",
      `${"a".repeat(32)}_`,
    ]) {
      expect(() => createKeyFormat({ prefix }), prefix).toThrow(TypeError);
    }
    expect(() => createKeyFormat({ prefix: 7 as unknown as string })).toThrow(/Invalid key prefix/);
  });
});

describe("isKeyShaped", () => {
  it("tells keys from JWTs by the prefix alone", () => {
    const token = keys.generate();
    expect(isKeyShaped(token, "sk_live_")).toBe(true);
    expect(keys.isKeyShaped(token)).toBe(true);
    expect(keys.isKeyShaped("sk_live_broken")).toBe(true);
    expect(keys.isKeyShaped("eyJhbGciOiJIUzI1NiJ9.e30.sig")).toBe(false);
    expect(keys.isKeyShaped(undefined as unknown as string)).toBe(false);
  });
});

describe("hint", () => {
  it("is the prefix, an ellipsis and the last four characters", () => {
    expect(keys.hint(KNOWN_KEY)).toBe("sk_live_…Mbyp");
    const token = keys.generate();
    expect(keys.hint(token)).toBe(`sk_live_…${token.slice(-4)}`);
    expect(createKeyFormat({ prefix: "sk_test_" }).hint(`sk_test_${KNOWN_KEY.slice(8)}`)).toBe(
      "sk_test_…Mbyp",
    );
  });

  it("refuses a token that is not a valid key, without echoing it", () => {
    const broken = `${KNOWN_KEY.slice(0, -1)}q`;
    expect(() => keys.hint(broken)).toThrow(TypeError);
    try {
      keys.hint(broken);
    } catch (error) {
      expect(String(error)).not.toContain(broken.slice(8));
    }
  });
});

describe("createKeyFormat: several prefixes (environments)", () => {
  const both = createKeyFormat({ prefixes: ["sk_live_", "sk_test_", "acme_dev_"] });
  const samples = both.prefixes.map((prefix) => both.generate(prefix));

  it("generates with the first prefix by default, or the one asked for", () => {
    expect(both.prefix).toBe("sk_live_");
    expect(both.generate()).toMatch(/^sk_live_[0-9A-Za-z]{36}$/);
    expect(samples[1]).toMatch(/^sk_test_[0-9A-Za-z]{36}$/);
    expect(samples[2]).toMatch(/^acme_dev_[0-9A-Za-z]{36}$/);
    expect(() => both.generate("sk_prod_")).toThrow(/not one of this format's prefixes/);
  });

  it("parses, shapes, hints and names the prefix of every one of them", () => {
    for (const [index, token] of samples.entries()) {
      const prefix = both.prefixes[index]!;
      expect(both.parse(token)).toMatchObject({ token, prefix });
      expect(both.isWellFormed(token)).toBe(true);
      expect(both.isKeyShaped(token)).toBe(true);
      expect(both.prefixOf(token)).toBe(prefix);
      expect(both.hint(token)).toBe(`${prefix}…${token.slice(-4)}`);
    }
    expect(both.prefixOf("eyJhbGciOiJIUzI1NiJ9")).toBeUndefined();
    expect(both.isKeyShaped("pk_live_x")).toBe(false);
  });

  it.each(samples)("%s: every one-character change of prefix or body is refused", (token) => {
    const prefixLength = both.prefixOf(token)!.length;
    for (const changed of substitutions(token, 0, prefixLength, PREFIX_CHARS)) {
      expect(both.parse(changed), changed).toBeNull();
    }
    for (const changed of substitutions(token, prefixLength, token.length, BASE62_ALPHABET)) {
      expect(both.parse(changed), changed).toBeNull();
    }
  });

  it("parses a key moved to another prefix: the checksum covers the random part only", () => {
    // Not a way into another environment: the prefix is hashed with the rest, so the moved key
    // is another secret, which finds nothing in storage (see environments.test.ts).
    const live = samples[0]!;
    expect(both.parse(`sk_test_${live.slice(8)}`)?.prefix).toBe("sk_test_");
    expect(both.parse(`acme_dev_${live.slice(8)}`)?.prefix).toBe("acme_dev_");
  });

  it("refuses prefixes that are ambiguous, repeated, malformed, or given both ways", () => {
    expect(() => createKeyFormat({ prefixes: ["sk_", "sk_live_"] })).toThrow(
      /"sk_" starts "sk_live_"/,
    );
    expect(() => createKeyFormat({ prefixes: ["sk_live_", "sk_"] })).toThrow(
      /"sk_" starts "sk_live_"/,
    );
    expect(() => createKeyFormat({ prefixes: ["sk_live_", "sk_live_"] })).toThrow(/listed twice/);
    expect(() => createKeyFormat({ prefixes: ["sk_live_", "Bad"] })).toThrow(/Invalid key prefix/);
    expect(() => createKeyFormat({ prefixes: [] })).toThrow(/non-empty list/);
    expect(() => createKeyFormat({ prefix: "sk_live_", prefixes: ["sk_test_"] })).toThrow(
      /not both/,
    );
  });

  it("is the single-prefix format itself when given one prefix", () => {
    const one = createKeyFormat({ prefixes: ["sk_test_"] });
    expect(one.prefixes).toEqual(["sk_test_"]);
    expect(one.generate()).toMatch(/^sk_test_/);
    expect(() => one.generate("sk_live_")).toThrow(/not sk_live_/);
  });
});
