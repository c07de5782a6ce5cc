import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { digestToHex } from "./hash-encoding.js";

describe("digestToHex", () => {
  // A fixed vector: SHA-256 of "abc" (FIPS 180-2, appendix B.1).
  const hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  const bytes = Buffer.from(hex, "hex");

  it("reads hex, base64 and base64url (with or without padding) into the same hex", () => {
    expect(digestToHex(hex.toUpperCase(), "hex")).toBe(hex);
    expect(digestToHex(bytes.toString("base64"), "base64")).toBe(hex);
    expect(digestToHex(bytes.toString("base64url"), "base64url")).toBe(hex);
    expect(digestToHex(`${bytes.toString("base64url")}=`, "base64url")).toBe(hex);
  });

  it("agrees with node:crypto on random digests in every encoding", () => {
    for (let i = 0; i < 200; i++) {
      const digest = createHash("sha256").update(String(Math.random())).digest();
      const expected = digest.toString("hex");
      expect(digestToHex(digest.toString("base64"), "base64")).toBe(expected);
      expect(digestToHex(digest.toString("base64url"), "base64url")).toBe(expected);
    }
  });

  it("refuses what is not 32 bytes in the named encoding", () => {
    expect(digestToHex(hex.slice(1), "hex")).toBeNull();
    expect(digestToHex(`${hex}00`, "hex")).toBeNull();
    expect(digestToHex(bytes.toString("base64url"), "base64")).toBe(
      bytes.toString("base64url").match(/[-_]/) ? null : hex,
    );
    expect(digestToHex(bytes.toString("base64"), "hex")).toBeNull();
    expect(digestToHex(Buffer.alloc(31).toString("base64"), "base64")).toBeNull();
    // The same 32 bytes with a nonzero unused bit in the last character: not what an encoder writes.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const encoded = bytes.toString("base64url");
    const lastIndex = alphabet.indexOf(encoded.slice(-1));
    const tampered = encoded.slice(0, -1) + alphabet[lastIndex | 1];
    expect(Buffer.from(tampered, "base64url").equals(bytes)).toBe(true);
    expect(digestToHex(tampered, "base64url")).toBeNull();
  });
});
