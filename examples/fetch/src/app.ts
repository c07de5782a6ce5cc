/**
 * The demo app as one Fetch handler, `(Request) => Promise<Response>`: the six key-management
 * endpoints from `@keyward/fetch`, and the two profile routes guarded by `withApiKey`. Nothing here
 * is specific to a runtime; `server.ts` serves it on Node, Bun and Deno with srvx, which puts the
 * client's address on `request.ip` on all three. `/mcp` is an MCP server guarded as an OAuth
 * protected resource (`demoMcp`), its metadata at the well-known paths.
 */
import type { Keyward } from "@keyward/core";
import type { BudgetsApi } from "@keyward/core/budgets";
import {
  answerMcp,
  type DemoMcp,
  demoMcp,
  MCP_METADATA_PATHS,
  MCP_PATH,
  MCP_SCOPES,
  PROFILE_ROUTE,
  PROFILE_ROUTES,
  profileResource,
  readProfile,
  updateProfile,
} from "@keyward/example-demo";
import { keywardFetchHandler, withApiKey } from "@keyward/fetch";
import type { ServerRequest } from "srvx";
import { completionsRoute } from "./completions.js";

const profilePattern = /^\/api\/v1\/profiles\/([^/]+)\/?$/;
/** The socket's address (srvx trusts no proxy header unless told to): what floods are counted by. */
const clientIp = (request: Request) => (request as ServerRequest).ip;

/** What a profile route is about: a key limited to some profiles gets 403 for the others. */
const resource = (request: Request) => profileResource(slugOf(request)!);

/** `mcp.listening(port)` must be called once the server listens (the resource names the port). */
export function createApp(
  keyward: Keyward & { budgets: BudgetsApi },
  mcp: DemoMcp = demoMcp(keyward),
): (request: Request) => Promise<Response> {
  const keyManagement = keywardFetchHandler(keyward);
  // POST /api/v1/completions (demo contract v0.4): reserve, stream, settle.
  const completions = completionsRoute(keyward, clientIp);
  const metadataPaths = new Set<string>(MCP_METADATA_PATHS);
  const answerMcpRoute = withApiKey(
    mcp.guard,
    { scopes: [...MCP_SCOPES], accept: "api-key", route: MCP_PATH, clientIp },
    (request, principal) => answerMcp(request, principal),
  );
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
    const { pathname } = new URL(request.url);
    if (pathname === MCP_PATH) return answerMcpRoute(request);
    if (metadataPaths.has(pathname) && request.method === "GET") return mcp.metadataResponse();
    const completion = await completions(request);
    if (completion) return completion;
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
