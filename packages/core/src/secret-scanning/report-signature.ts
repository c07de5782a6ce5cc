/**
 * Whether a secret-scanning report was signed by the scanner: the `Github-Public-Key-Signature`
 * header is a base64 DER ECDSA P-256 SHA-256 signature of the raw body, made with the published
 * key named by `Github-Public-Key-Identifier`. Checked with WebCrypto only, so it runs wherever
 * the core does (Node, Deno, Bun, Workers).
 */
import { KeywardError } from "../errors/keyward-error.js";
import { derToRawP256 } from "./der-signature.js";
import { decodeBase64, type ScannerPublicKeys } from "./scanner-public-keys.js";

export const keyIdentifierHeader = "github-public-key-identifier";
export const signatureHeader = "github-public-key-signature";

/** The longest header values considered: GitHub's are a 64-character hex id and ~96 characters. */
const maxHeaderLength = 512;

/**
 * Resolves when `body` carries a valid signature; otherwise throws `invalid_signature` (401), or
 * `scanner_keys_unavailable` (503) when the keys cannot be fetched.
 */
export async function checkReportSignature(
  headers: Headers,
  body: Uint8Array<ArrayBuffer>,
  keys: ScannerPublicKeys,
): Promise<void> {
  const identifier = headers.get(keyIdentifierHeader)?.trim();
  const signature = headers.get(signatureHeader)?.trim();
  if (!identifier || !signature) {
    throw invalid("Missing Github-Public-Key-Identifier or Github-Public-Key-Signature header");
  }
  if (identifier.length > maxHeaderLength || signature.length > maxHeaderLength) {
    throw invalid("Invalid signature");
  }
  const der = decodeBase64(signature);
  const raw = der && derToRawP256(der);
  if (!raw) throw invalid("Invalid signature");
  const key = await keys.find(identifier);
  if (!key) throw invalid("Unknown signing key");
  const valid = await crypto.subtle.verify(
    { name: "ECDSA", hash: "SHA-256" },
    key,
    raw as Uint8Array<ArrayBuffer>,
    body,
  );
  if (!valid) throw invalid("Invalid signature");
}

function invalid(detail: string): KeywardError {
  return new KeywardError("invalid_signature", detail);
}
