import type { errorStatus, KeywardErrorCode } from "./codes.js";

type UnauthorizedCode = {
  [Code in KeywardErrorCode]: (typeof errorStatus)[Code] extends 401 ? Code : never;
}[KeywardErrorCode];

/**
 * The RFC 6750 error code each 401 announces in `WWW-Authenticate`. `null`: no bearer credential
 * was presented, and RFC 6750 §3.1 says such a challenge carries no error code. Typed so that a
 * new 401 code cannot be added to the status table without deciding its challenge here.
 */
const challengeError = {
  missing_credentials: null,
  invalid_token: "invalid_token",
  invalid_api_key: "invalid_token",
  // A valid session where the route takes only API keys: the token offered is not one it accepts.
  api_key_required: "invalid_token",
  // A secret scanner signs its reports instead of presenting a bearer token: no challenge at all.
  invalid_signature: false,
} as const satisfies Record<UnauthorizedCode, "invalid_token" | null | false>;

// RFC 6750 §3: error_description is limited to these characters (no quote, no backslash).
const describable = /^[\x20\x21\x23-\x5B\x5D-\x7E]{1,200}$/;

/**
 * The `WWW-Authenticate` value a 401 carries (RFC 6750 §3), or `null` for any other error.
 * `detail` becomes the `error_description` when it is plain printable ASCII; Keyward's 401 details
 * are fixed sentences that never contain token material, so nothing from the request is echoed.
 *
 * @example
 * bearerChallenge("missing_credentials", "Not authenticated"); // 'Bearer'
 * bearerChallenge("invalid_token", "Token has expired");
 * // 'Bearer error="invalid_token", error_description="Token has expired"'
 */
export function bearerChallenge(code: KeywardErrorCode, detail: unknown): string | null {
  if (!(code in challengeError)) return null;
  const error = challengeError[code as UnauthorizedCode];
  if (error === false) return null;
  if (error === null) return "Bearer";
  const description =
    typeof detail === "string" && describable.test(detail) ? `, error_description="${detail}"` : "";
  return `Bearer error="${error}"${description}`;
}
