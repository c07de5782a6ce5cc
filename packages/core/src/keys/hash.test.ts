import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  createSecretHasher,
  jsSha256,
  nodeSha256,
  type Sha256Implementation,
  secretHasherOn,
  toHex,
} from "./hash.js";

const text = (value: string) => new TextEncoder().encode(value);
const repeat = (byte: number, length: number) => new Uint8Array(length).fill(byte);
const range = (from: number, to: number) =>
  Uint8Array.from({ length: to - from + 1 }, (_, i) => from + i);

const node = nodeSha256();
if (node === undefined) throw new Error("tests run on Node ≥ 20.16, which has getBuiltinModule");
const implementations: Sha256Implementation[] = [jsSha256, node];

// FIPS 180-2, Appendix B.
const SHA256_VECTORS: [name: string, data: string | Uint8Array, digest: string][] = [
  ["empty", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
  ["abc", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
  [
    "448-bit message",
    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  ],
  [
    "one million 'a'",
    repeat(0x61, 1_000_000),
    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
  ],
];

// RFC 4231, section 4. Case 5 (output truncated to 128 bits) is compared on its prefix.
const HMAC_VECTORS: [name: string, key: Uint8Array, data: Uint8Array, mac: string][] = [
  [
    "case 1",
    repeat(0x0b, 20),
    text("Hi There"),
    "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
  ],
  [
    "case 2",
    text("Jefe"),
    text("what do ya want for nothing?"),
    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
  ],
  [
    "case 3",
    repeat(0xaa, 20),
    repeat(0xdd, 50),
    "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe",
  ],
  [
    "case 4",
    range(0x01, 0x19),
    repeat(0xcd, 50),
    "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
  ],
  [
    "case 5 (truncated)",
    repeat(0x0c, 20),
    text("Test With Truncation"),
    "a3b6167473100ee06e0c796c2955552b",
  ],
  [
    "case 6",
    repeat(0xaa, 131),
    text("Test Using Larger Than Block-Size Key - Hash Key First"),
    "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
  ],
  [
    "case 7",
    repeat(0xaa, 131),
    text(
      "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.",
    ),
    "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
  ],
];

describe.each(implementations)("$name implementation", (implementation) => {
  it.each(SHA256_VECTORS)("SHA-256 FIPS 180-2: %s", (_, data, digest) => {
    expect(implementation.sha256(data)).toBe(digest);
    if (typeof data === "string") expect(implementation.sha256(text(data))).toBe(digest);
  });

  it.each(HMAC_VECTORS)("HMAC-SHA-256 RFC 4231 %s", (_, key, data, mac) => {
    const output = implementation.hmacSha256(key)(data);
    expect(output).toHaveLength(64);
    expect(output.startsWith(mac)).toBe(true);
  });
});

/** Random text with multi-byte characters, astral characters and lone surrogates. */
function randomText(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) {
    const kind = Math.random();
    if (kind < 0.6) out += String.fromCharCode(32 + Math.floor(Math.random() * 95));
    else if (kind < 0.85) out += String.fromCharCode(0x80 + Math.floor(Math.random() * 0xd700));
    else if (kind < 0.97)
      out += String.fromCodePoint(0x10000 + Math.floor(Math.random() * 0xfffff));
    else out += String.fromCharCode(0xd800 + Math.floor(Math.random() * 0x800));
  }
  return out;
}

describe("plain JavaScript and node:crypto agree", () => {
  it("on SHA-256 of random strings and bytes of every length up to 300", () => {
    for (let length = 0; length <= 300; length++) {
      const string = randomText(length);
      expect(jsSha256.sha256(string)).toBe(node.sha256(string));
      const bytes = crypto.getRandomValues(new Uint8Array(length));
      expect(jsSha256.sha256(bytes)).toBe(node.sha256(bytes));
    }
  });

  it("on HMAC-SHA-256 with random keys of every length up to 200", () => {
    for (let keyLength = 0; keyLength <= 200; keyLength++) {
      const key = crypto.getRandomValues(new Uint8Array(keyLength));
      const data = randomText(keyLength % 97);
      expect(jsSha256.hmacSha256(key)(data)).toBe(node.hmacSha256(key)(data));
    }
  });
});

describe("toHex", () => {
  it("writes two lowercase digits per byte", () => {
    expect(toHex(new Uint8Array())).toBe("");
    expect(toHex(Uint8Array.of(0, 1, 0x0f, 0x10, 0xab, 0xff))).toBe("00010f10abff");
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(toHex(all)).toBe(Buffer.from(all).toString("hex"));
  });
});

describe("createSecretHasher", () => {
  const secret = "sk_live_0123456789ABCDEFGHIJKLMNOPQRST4PMbyp";

  it("is SHA-256 without a pepper and HMAC-SHA-256 with one, on either implementation", () => {
    for (const implementation of ["js", "node", "auto"] as const) {
      const plain = secretHasherOn(implementation);
      expect(plain.algorithm).toBe("sha256");
      expect(plain.hash("abc")).toBe(SHA256_VECTORS[1]![2]);
      const peppered = secretHasherOn(implementation, { pepper: "Jefe" });
      expect(peppered.algorithm).toBe("hmac-sha256");
      expect(peppered.hash("what do ya want for nothing?")).toBe(HMAC_VECTORS[1]![3]);
    }
  });

  it("picks node:crypto on Node by default, and can be told to use plain JavaScript", () => {
    expect(createSecretHasher().implementation).toBe("node");
    expect(secretHasherOn("js").implementation).toBe("js");
  });

  it("accepts the pepper as bytes, and copies it", () => {
    const pepper = repeat(0x0b, 20);
    const hasher = createSecretHasher({ pepper });
    pepper.fill(0);
    expect(hasher.hash("Hi There")).toBe(HMAC_VECTORS[0]![3]);
  });

  it("gives a different hash for a different pepper, and the same hash every time", () => {
    const a = createSecretHasher({ pepper: "pepper-a" });
    const b = createSecretHasher({ pepper: "pepper-b" });
    expect(a.hash(secret)).toBe(a.hash(secret));
    expect(a.hash(secret)).not.toBe(b.hash(secret));
    expect(a.hash(secret)).not.toBe(createSecretHasher().hash(secret));
  });

  it("returns 64 hex characters and never the secret, nor keeps it", () => {
    const pepper = "a-server-side-pepper-kept-out-of-the-database";
    for (const hasher of [
      createSecretHasher(),
      secretHasherOn("js"),
      createSecretHasher({ pepper }),
      secretHasherOn("js", { pepper }),
    ]) {
      const output = hasher.hash(secret);
      expect(output).toMatch(/^[0-9a-f]{64}$/);
      expect(output).not.toContain(secret.slice(8, 38));
      expect(output).not.toContain("0123456789");
      for (const shown of [
        inspect(hasher, { showHidden: true, depth: 5 }),
        JSON.stringify(hasher),
      ]) {
        expect(shown).not.toContain(secret);
        expect(shown).not.toContain(pepper);
      }
    }
  });

  it("rejects a non-string secret without echoing it", () => {
    const hasher = createSecretHasher();
    expect(() => hasher.hash(42 as unknown as string)).toThrow(TypeError);
    expect(() => hasher.hash(undefined as unknown as string)).toThrow(/as a string/);
  });

  it("rejects an empty or mistyped pepper and an unknown implementation", () => {
    expect(() => createSecretHasher({ pepper: "" })).toThrow(TypeError);
    expect(() => createSecretHasher({ pepper: new Uint8Array() })).toThrow(TypeError);
    expect(() => createSecretHasher({ pepper: 42 as unknown as string })).toThrow(TypeError);
    expect(() => secretHasherOn("wasm" as unknown as "auto")).toThrow(
      /Unknown hash implementation/,
    );
  });
});
