/**
 * ECDSA signatures come in two encodings: ASN.1 DER, `SEQUENCE { INTEGER r, INTEGER s }`, which
 * GitHub sends (as OpenSSL and most libraries make them), and the fixed-width `r || s` that
 * WebCrypto's `verify` takes (IEEE P1363). This converts the first to the second for P-256, by
 * hand: WebCrypto has no DER option, and the core takes no ASN.1 dependency for eight bytes of
 * framing.
 */

/** Bytes of each of r and s on P-256. */
const P256_SCALAR_BYTES = 32;

/**
 * The 64-byte `r || s` of a DER-encoded P-256 signature, or null for anything that is not exactly
 * one: strict DER (definite short lengths, minimal positive integers, no trailing bytes), so one
 * signature has one encoding.
 */
export function derToRawP256(der: Uint8Array): Uint8Array | null {
  if (der.length < 8 || der[0] !== 0x30 || der[1] !== der.length - 2) return null;
  const r = readInteger(der, 2);
  if (!r) return null;
  const s = readInteger(der, r.next);
  if (!s || s.next !== der.length) return null;
  const raw = new Uint8Array(2 * P256_SCALAR_BYTES);
  raw.set(r.value, P256_SCALAR_BYTES - r.value.length);
  raw.set(s.value, 2 * P256_SCALAR_BYTES - s.value.length);
  return raw;
}

/** The INTEGER at `offset`, without its sign byte, and where the next element starts. */
function readInteger(der: Uint8Array, offset: number): { value: Uint8Array; next: number } | null {
  if (der[offset] !== 0x02) return null;
  const length = der[offset + 1];
  // At most 33 bytes: 32 of scalar and the 0x00 that keeps a high first bit positive.
  if (length === undefined || length === 0 || length > P256_SCALAR_BYTES + 1) return null;
  const start = offset + 2;
  const end = start + length;
  if (end > der.length) return null;
  let value = der.subarray(start, end);
  if (value[0]! & 0x80) return null; // negative: never a valid r or s
  if (value[0] === 0x00) {
    // A leading zero is allowed only to keep the next byte's high bit from reading as a sign.
    if (length === 1 || !(value[1]! & 0x80)) return null;
    value = value.subarray(1);
  }
  if (value.length > P256_SCALAR_BYTES) return null;
  return { value, next: end };
}
