import { createSign, generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { derToRawP256 } from "./der-signature.js";

const hex = (text: string) =>
  Uint8Array.from((text.match(/../g) ?? []).map((byte) => parseInt(byte, 16)));

describe("derToRawP256", () => {
  it("converts GitHub's documented example signature (r and s of 32 bytes, one with a sign byte)", () => {
    // From GitHub's partner-program docs: MEUCIQDfLvT8/zM8F1aB3cM0ZwyeWF1m5YR6IhcUIv1OKQYL0wIgBZ5lVXB3gHK+dT8+xt0WgRVLqvsTPFiDO9QP/7eJ4yE=
    const der = Uint8Array.from(
      atob(
        "MEUCIQDfLvT8/zM8F1aB3cM0ZwyeWF1m5YR6IhcUIv1OKQYL0wIgBZ5lVXB3gHK+dT8+xt0WgRVLqvsTPFiDO9QP/7eJ4yE=",
      ),
      (char) => char.charCodeAt(0),
    );
    const raw = derToRawP256(der);
    expect(raw).not.toBeNull();
    expect(raw!.length).toBe(64);
    // r lost its 0x00 sign byte; s kept its 32 bytes.
    expect(raw![0]).toBe(0xdf);
    expect(raw![32]).toBe(0x05);
  });

  it("left-pads short integers to 32 bytes", () => {
    // r = 0x01, s = 0x7f: the smallest encodings.
    expect(derToRawP256(hex("300602010102017f"))).toEqual(
      Uint8Array.from([...new Uint8Array(31), 1, ...new Uint8Array(31), 0x7f]),
    );
  });

  it("refuses what is not strict DER", () => {
    for (const bad of [
      "", // empty
      "3006020101020180", // s negative (high bit without a sign byte)
      "300702020001020101", // r with a needless leading zero
      "3007020101020101ff", // trailing byte inside the sequence length
      "300602010102017f00", // trailing byte after the sequence
      "3106020101020101", // not a SEQUENCE
      "3006030101020101", // not an INTEGER
      `3046022200${"ff".repeat(33)}020101`.slice(0, 20), // truncated
    ]) {
      expect(derToRawP256(hex(bad)), bad).toBeNull();
    }
    // 34-byte r (33 bytes after the sign byte): too long for P-256.
    const long = hex(`302702220080${"00".repeat(32)}020101`);
    expect(derToRawP256(long)).toBeNull();
  });

  it("round-trips OpenSSL's signatures through WebCrypto's verify (1,000 or more, short integers included)", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const key = await crypto.subtle.importKey(
      "spki",
      publicKey.export({ type: "spki", format: "der" }),
      { name: "ECDSA", namedCurve: "P-256" },
      false,
      ["verify"],
    );
    // An integer is encoded in under 32 bytes when its top byte is zero and the next one's high bit
    // is clear: 1 in 512, so about 1 signature in 256 takes the padding path. A fixed 1,000 missed
    // it in about 2 % of runs; signing goes on (boundedly) until it has been taken a few times.
    let shortIntegers = 0;
    let signed = 0;
    while ((signed < 1_000 || shortIntegers < 3) && signed < 50_000) {
      const body = new TextEncoder().encode(`[{"token":"sk_live_${signed}","type":"t"}]`);
      signed++;
      const der = new Uint8Array(createSign("SHA256").update(body).sign(privateKey));
      if (der[3]! < 32 || der[5 + der[3]!]! < 32) shortIntegers++;
      const raw = derToRawP256(der);
      expect(raw).not.toBeNull();
      const valid = await crypto.subtle.verify(
        { name: "ECDSA", hash: "SHA-256" },
        key,
        raw as Uint8Array<ArrayBuffer>,
        body,
      );
      expect(valid).toBe(true);
    }
    expect(shortIntegers).toBeGreaterThanOrEqual(3);
  });
});
