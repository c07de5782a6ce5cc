/**
 * A SHA-256 digest as another system wrote it (hex, base64url or base64), read back into the
 * lowercase hex Keyward stores: the same 32 bytes, whatever the encoding, so a token hashed here
 * later finds the record.
 */
import { toHex } from "../../keys/hash.js";

export type HashEncoding = "hex" | "base64url" | "base64";

const hexDigest = /^[0-9a-fA-F]{64}$/;
// 32 bytes are 43 base64 characters and one padding "=" (or none).
const base64Digest = /^[A-Za-z0-9+/]{43}=?$/;
const base64urlDigest = /^[A-Za-z0-9_-]{43}=?$/;

/** The digest as 64 lowercase hex characters, or null when `value` is not 32 bytes so encoded. */
export function digestToHex(value: string, encoding: HashEncoding): string | null {
  if (encoding === "hex") return hexDigest.test(value) ? value.toLowerCase() : null;
  const pattern = encoding === "base64" ? base64Digest : base64urlDigest;
  if (!pattern.test(value)) return null;
  const standard = value.replace(/=$/, "").replaceAll("-", "+").replaceAll("_", "/");
  const binary = atob(`${standard}=`);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  // The last character carries 2 unused bits; a digest written by a correct encoder has them 0.
  if (bytes.length !== 32 || btoaOf(bytes) !== `${standard}=`) return null;
  return toHex(bytes);
}

function btoaOf(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
