import { KeywardError } from "../../errors/keyward-error.js";
import { ownerIdProblem } from "../../validation/owner-id.js";
import { jsonResponse } from "../json-response.js";
import type { EndpointHandler } from "./route-context.js";

/**
 * `GET /api-keys` → the caller's keys, newest first, revoked and expired included. With
 * `organizations` configured, `?organizationId=` lists that organization's keys instead.
 */
export const listKeys: EndpointHandler = async ({ request, user, keys, context, headers }) => {
  const organizationId = context.organizations ? organizationQuery(request) : undefined;
  return jsonResponse(200, { data: await keys.forCaller.list(user, organizationId) }, headers);
};

/** The `organizationId` query parameter: absent, or an id by the owner-id rule (else 422). */
function organizationQuery(request: Request): string | undefined {
  const value = new URL(request.url).searchParams.get("organizationId");
  if (value === null) return undefined;
  const problem = ownerIdProblem(value);
  if (problem === null) return value;
  throw new KeywardError("validation_failed", [
    {
      loc: ["query", "organizationId"],
      msg: `Value error, organizationId ${problem}`,
      type: "value_error",
    },
  ]);
}
