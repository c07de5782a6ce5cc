/**
 * How a refused JWT becomes a 401. Details are fixed sentences chosen from jose's error code and
 * the claim it names, never jose's own messages, so nothing from the token (or the key set) reaches
 * a response; the original error stays in `cause` for logs.
 */
import { internalError, KeywardError } from "../../errors/keyward-error.js";

/** Thrown by the JWKS resolver when the key set itself could not be obtained. */
export class SigningKeysUnavailable extends Error {}

export function errorCode(error: unknown): string {
  const code =
    typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : "";
}

const detailByCode: Record<string, string> = {
  ERR_JWT_EXPIRED: "Token has expired",
  ERR_JOSE_ALG_NOT_ALLOWED: "Token algorithm is not accepted",
  ERR_JOSE_NOT_SUPPORTED: "Token algorithm is not accepted",
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: "Token signature is invalid",
  ERR_JWKS_NO_MATCHING_KEY: "Token signing key is unknown",
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: "Token signing key is ambiguous",
  ERR_JWS_INVALID: "Token is malformed",
  ERR_JWT_INVALID: "Token is malformed",
};

/** By `claim:reason` first (jose's `reason`: `missing`, `invalid`, `check_failed`), then by claim. */
const detailByClaim: Record<string, string> = {
  "exp:missing": "Token has no expiry (exp claim)",
  "iat:missing": "Token has no issue time (iat claim)",
  "iat:invalid": "Token issue time (iat claim) is invalid",
  "iat:check_failed": "Token issue time (iat claim) is in the future",
  nbf: "Token is not yet valid",
  iss: "Token issuer is not accepted",
  aud: "Token audience is not accepted",
};

/** A token jose refused (or the key set being out of reach) as the error Keyward answers with. */
export function refusedToken(cause: unknown): KeywardError {
  // The identity provider being unreachable is our outage, not the caller's bad token: a 401
  // would tell clients to drop a perfectly good session.
  if (cause instanceof SigningKeysUnavailable) return internalError(cause.cause);
  const code = errorCode(cause);
  const { claim, reason } = (cause ?? {}) as { claim?: unknown; reason?: unknown };
  let detail: string | undefined;
  if (code === "ERR_JWT_EXPIRED" && claim === "iat") {
    // jose reports `maxTokenAge` exceeded as an expiry, naming `iat`.
    detail = "Token is older than the maximum token age";
  } else if (code === "ERR_JWT_CLAIM_VALIDATION_FAILED" && typeof claim === "string") {
    detail = detailByClaim[`${claim}:${String(reason)}`] ?? detailByClaim[claim];
  }
  return new KeywardError("invalid_token", detail ?? detailByCode[code] ?? "Token is invalid", {
    cause,
  });
}
