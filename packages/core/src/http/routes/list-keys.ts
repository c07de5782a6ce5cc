import { parsePageSize } from "../../api/list-cursor.js";
import { KeywardError } from "../../errors/keyward-error.js";
import { ownerIdProblem } from "../../validation/owner-id.js";
import { jsonResponse } from "../json-response.js";
import type { EndpointHandler } from "./route-context.js";

/**
 * `GET /api-keys` → the caller's keys, newest first, revoked and expired included. With
 * `organizations()` listed, `?organizationId=` lists that organization's keys instead;
 * `?limit=` (and `&cursor=`) pages.
 */
export const listKeys: EndpointHandler = async ({ request, user, keys, context, headers }) => {
  const query = new URL(request.url).searchParams;
  const organizationId = context.organizations ? organizationQuery(query) : undefined;
  const limit = query.get("limit");
  if (limit === null) {
    return jsonResponse(200, { data: await keys.forCaller.list(user, organizationId) }, headers);
  }
  // `?limit=` pages: `{ data, nextCursor }`. Without it, every key, as the contract says.
  const page = await keys.forCaller.listPage(user, organizationId, {
    limit: parsePageSize(limit),
    cursor: query.get("cursor"),
  });
  return jsonResponse(200, page, headers);
};

/** The `organizationId` query parameter: absent, or an id by the owner-id rule (else 422). */
function organizationQuery(query: URLSearchParams): string | undefined {
  const value = query.get("organizationId");
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
