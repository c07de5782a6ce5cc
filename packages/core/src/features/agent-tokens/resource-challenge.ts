/**
 * The challenges a protected resource answers with (RFC 6750 §3, RFC 9728 §5.1): every 401 names
 * the resource's metadata (`resource_metadata="…"`), so a client such as an MCP client finds the
 * authorization servers from the refusal alone; a 403 for a missing scope says
 * `error="insufficient_scope"` and the scopes the route needs (`scope="…"`), so the client can ask
 * for them. Other refusals go out as the kernel made them.
 */
import type { VerifyResult } from "../../auth/principal.js";
import { KeywardError } from "../../errors/keyward-error.js";
import { type ScopeRequirement, scopesNamedBy } from "../../scopes/scope-requirement.js";

/** The refusal with the resource's challenge; an admitted result as it is. */
export function withResourceChallenge(
  result: VerifyResult,
  metadataUrl: string,
  required: ScopeRequirement | undefined,
): VerifyResult {
  if (result.ok) return result;
  const { error } = result;
  let challenge: string;
  if (error.status === 401) {
    const kernels = error.headers["WWW-Authenticate"];
    if (kernels === undefined) return result; // a scanner's signature: no bearer challenge
    challenge = `${kernels}${kernels === "Bearer" ? " " : ", "}resource_metadata="${metadataUrl}"`;
  } else if (error.code === "insufficient_scope") {
    const scopes = required === undefined ? [] : scopesNamedBy(required);
    challenge = `Bearer error="insufficient_scope", scope="${scopes.join(" ")}", resource_metadata="${metadataUrl}"`;
  } else {
    return result;
  }
  const headers = { ...error.headers, "WWW-Authenticate": challenge };
  return {
    ...result,
    error: new KeywardError(error.code, error.detail, { cause: error.cause, headers }),
    headers: { ...result.headers, "WWW-Authenticate": challenge },
  };
}
