import { jsonResponse } from "../../http/json-response.js";
import type { FeatureEndpointHandler } from "../../http/routes/route-context.js";
import type { InternalEventsApi } from "./events-api.js";

/**
 * `GET /api-keys/{key_id}/events` (with `events()` listed) → one page of the key's audit log, newest first:
 * `{ data, nextCursor }`. `?limit=` (default 100), `&cursor=`, and `&types=` (repeated, or
 * comma-separated) to keep only some types. Who may read the key's usage may read its events.
 */
export const keyEventsEndpoint =
  (events: InternalEventsApi): FeatureEndpointHandler =>
  async ({ request, user, keyId, headers }) => {
    const query = new URL(request.url).searchParams;
    const types = query
      .getAll("types")
      .flatMap((value) => value.split(","))
      .map((type) => type.trim());
    const page = await events.forCaller(user, keyId, {
      limit: query.get("limit"),
      cursor: query.get("cursor"),
      types,
    });
    return jsonResponse(200, page, headers);
  };
