/**
 * Whether a secret-scanning report was signed by the scanner: the `Github-Public-Key-Signature`
 * header is a base64 DER ECDSA P-256 SHA-256 signature of the raw body, made with the published
 * key named by `Github-Public-Key-Identifier`. Checked with WebCrypto only, so it runs wherever
 * the core does (Node, Deno, Bun, Workers).
 */
import { KeywardError } from "../../errors/keyward-error.js";
import { derToRawP256 } from "./der-signature.js";
import { decodeBase64, type ScannerPublicKeys } from "./scanner-public-keys.js";

export const keyIdentifierHeader = "github-public-key-identifier";
export const signatureHeader = "github-public-key-signature";

/** The longest header values considered: GitHub's are a 64-character hex id and ~96 characters. */
const maxHeaderLength = 512;

/** A report's claimed signer and signature, checked as far as they can be without its body. */
export interface ReportSigner {
  key: CryptoKey;
  /** The signature as raw `r || s`, as WebCrypto verifies it. */
  signature: Uint8Array<ArrayBuffer>;
}

/**
 * The signer a report's headers name, before a byte of its body is read: missing, oversized or
 * undecodable headers and an identifier the scanner does not publish are refused here (401), so an
 * unsigned request costs no buffering at all. Throws `scanner_keys_unavailable` (503) when the
 * keys cannot be fetched.
 */
export async function reportSigner(
  headers: Headers,
  keys: ScannerPublicKeys,
): Promise<ReportSigner> {
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
  return { key, signature: raw as Uint8Array<ArrayBuffer> };
}

/** Resolves when `body` is what `signer` signed; otherwise throws `invalid_signature` (401). */
export async function checkReportSignature(
  signer: ReportSigner,
  body: Uint8Array<ArrayBuffer>,
): Promise<void> {
  const valid = await crypto.subtle.verify(
    { name: "ECDSA", hash: "SHA-256" },
    signer.key,
    signer.signature,
    body,
  );
  if (!valid) throw invalid("Invalid signature");
}

function invalid(detail: string): KeywardError {
  return new KeywardError("invalid_signature", detail);
}
