/**
 * Error bodies, from the one error table (`errors/codes.ts`): FastAPI's `{"detail": ...}` with
 * Keyward's `code`, the Pydantic-style validation array of a 422, and, per status, exactly the
 * codes that status can carry.
 */
import { errorStatus, type KeywardErrorCode } from "../../../errors/codes.js";
import { codeByStatus } from "../../../errors/error-body.js";
import { either, integer, listOf, object, oneOf, string } from "./nodes.js";

export const validationIssueType = object({
  required: {
    loc: listOf(either(string, integer)).describe(
      'Where the problem is: "body", then the field and any index',
    ),
    msg: string,
    type: string.describe("A Pydantic error type: missing, string_type, literal_error, …"),
  },
});

/**
 * The error body whose `code` is one of `codes`. Only `validation_failed` carries the array of
 * issues; every other code a sentence.
 */
export function errorBodyType(codes: readonly KeywardErrorCode[]) {
  const detail = codes.includes("validation_failed")
    ? either(string, listOf(validationIssueType))
    : string;
  return object({ required: { detail, code: oneOf(...codes) } });
}

export const validationErrorBodyType = object({
  required: {
    detail: listOf(validationIssueType).atLeastLength(1),
    code: oneOf("validation_failed"),
  },
});

const allCodes = Object.keys(errorStatus) as KeywardErrorCode[];

/**
 * The codes an answer with `status` can carry: those the table maps to it, the code a framework's
 * own answer of that status gets, and `http_error` for a status the table has no code for.
 */
export function codesForStatus(status: number): KeywardErrorCode[] {
  const codes = allCodes.filter((code) => errorStatus[code] === status);
  const framework = codeByStatus[status];
  if (framework && !codes.includes(framework)) codes.push(framework);
  if (codes.length === 0) codes.push(status >= 500 ? "internal" : "http_error");
  return codes;
}

export { allCodes as errorCodes };

/**
 * Whether an instance configured as described can raise `code`: the organization codes only with
 * `organizations`, `too_many_keys` only with a per-owner key limit. The rest can always occur.
 */
export function codeIsConfigured(
  code: KeywardErrorCode,
  configuration: { organizations: boolean; maxKeysPerOwner: boolean },
): boolean {
  if (code === "not_member" || code === "role_not_permitted" || code === "scope_not_grantable") {
    return configuration.organizations;
  }
  if (code === "too_many_keys") return configuration.maxKeysPerOwner;
  // Answered only by the secret-scanning endpoint, whose operation describes its own errors.
  if (
    code === "invalid_signature" ||
    code === "scanner_keys_unavailable" ||
    code === "reports_busy" ||
    // Answered only by recoverable()'s reveal endpoint, which is not in the kernel's document.
    code === "reauthentication_required" ||
    code === "secret_not_recoverable"
  ) {
    return false;
  }
  return true;
}
