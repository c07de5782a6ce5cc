/**
 * The Worker's routes as one Fetch handler: Keyward's endpoints first, then `/mcp` and its
 * metadata (when the Worker names its resource), `POST /api/v1/completions`, and the two profile
 * routes of the demo contract, each behind `withApiKey` with the scope it needs.
 */
import type { Keyward } from "@keyward/core";
import type { ProtectedResource } from "@keyward/core/agent-tokens";
import type { BudgetsApi } from "@keyward/core/budgets";
import { keywardFetchHandler, withApiKey } from "@keyward/fetch";
import {
  PROFILE_ROUTE,
  PROFILE_ROUTES,
  profileResource,
  readProfile,
  updateProfile,
} from "@keyward/testing/demo-contract";
import { completionsRoute } from "./completions.js";
import { mcpRoute } from "./mcp.js";

const profilePattern = /^\/api\/v1\/profiles\/([^/]+)\/?$/;

/**
 * Cloudflare's edge sets `CF-Connecting-IP` to the client's address and overwrites any value a
 * client sent, so forged-key floods are counted per real client. Bare `workerd` (and this example
 * run locally) passes the header through as the client wrote it: there it is only as good as
 * whatever proxy sits in front.
 */
const clientIp = (request: Request) => request.headers.get("cf-connecting-ip") ?? undefined;

/** What a profile route is about: a key limited to some profiles gets 403 for the others. */
const resource = (request: Request) => profileResource(slugOf(request)!);

export interface AppParts {
  /** `/mcp`'s protected resource; undefined: `/mcp` is not served. */
  mcp?: ProtectedResource | undefined;
  /** Given the work a response leaves running (a hold's settle), for `ctx.waitUntil`. */
  pending?: (work: Promise<unknown>) => void;
}

export function createApp(
  keyward: Keyward & { budgets: BudgetsApi },
  parts: AppParts = {},
): (request: Request) => Promise<Response> {
  const keyManagement = keywardFetchHandler(keyward);
  const mcp = mcpRoute(keyward, parts.mcp, clientIp);
  // POST /api/v1/completions (demo contract v0.4): reserve, stream, settle.
  const completions = completionsRoute(keyward, clientIp, parts.pending ?? (() => {}));
  const read = withApiKey(
    keyward,
    { scopes: PROFILE_ROUTES.read.scopes, route: `GET ${PROFILE_ROUTE}`, clientIp, resource },
    (request, principal) => Response.json(readProfile(slugOf(request)!, principal)),
  );
  const update = withApiKey(
    keyward,
    { scopes: PROFILE_ROUTES.update.scopes, route: `PUT ${PROFILE_ROUTE}`, clientIp, resource },
    (request, principal) => Response.json(updateProfile(slugOf(request)!, principal)),
  );

  return async (request) => {
    const answered = await keyManagement(request);
    if (answered) return answered;
    const routed = (await mcp(request)) ?? (await completions(request));
    if (routed) return routed;
    if (slugOf(request) === null) return problem(404, "route_not_found", "Not Found");
    if (request.method === "GET" || request.method === "HEAD") return read(request);
    if (request.method === "PUT") return update(request);
    return problem(405, "method_not_allowed", "Method Not Allowed", { Allow: "GET, HEAD, PUT" });
  };
}

/** The `:slug` of a profile URL, or null when the URL is not a profile route. */
function slugOf(request: Request): string | null {
  const match = profilePattern.exec(new URL(request.url).pathname);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return null; // a malformed %-escape names no profile
  }
}

/** An error in the contract's shape, with the code Keyward's own errors carry. */
function problem(
  status: number,
  code: string,
  detail: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ detail, code }, { status, headers });
}
