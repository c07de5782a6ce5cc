/**
 * The demo app on Hono: `keyward()` serves the six key-management endpoints, `requireScopes`
 * guards the two profile routes (usage recorded under their route template), and the client
 * address is the socket's, from @hono/node-server's `getConnInfo`. Anything else answers in the
 * contract's `{"detail": ...}` shape instead of Hono's plain-text pages. `/mcp` is an MCP server
 * guarded as an OAuth protected resource (`demoMcp`), its metadata at the well-known paths.
 */
import { getConnInfo } from "@hono/node-server/conninfo";
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
import { type KeywardEnv, keyward, requireApiKey } from "@keyward/hono";
import { type Context, Hono } from "hono";
import { addCompletions } from "./completions.js";

/** What a profile route is about: a key limited to some profiles gets 403 for the others. */
const resource = (c: Context) => profileResource(c.req.param("slug") ?? "");

/** `mcp.listening(port)` must be called once the server listens (the resource names the port). */
export function createApp(
  instance: Keyward & { budgets: BudgetsApi },
  mcp: DemoMcp = demoMcp(instance),
): Hono<KeywardEnv> {
  const app = new Hono<KeywardEnv>();
  app.use(keyward(instance, { getConnInfo }));

  for (const path of MCP_METADATA_PATHS) app.get(path, () => mcp.metadataResponse());
  app.all(
    MCP_PATH,
    requireApiKey(mcp.guard, { scopes: [...MCP_SCOPES], accept: "api-key", getConnInfo }),
    (c) => answerMcp(c.req.raw, c.get("keyward").principal),
  );

  // POST /api/v1/completions (demo contract v0.4): reserve, stream, settle.
  addCompletions(app, instance, (c) => getConnInfo(c).remote.address);

  // Hono hands a slug whose %-escape does not decode to the route as written ("%zz"); like the other
  // examples, such a URL names no profile.
  app.use(PROFILE_ROUTE, async (c, next) => (decodes(c.req.path) ? next() : c.notFound()));

  app.get(PROFILE_ROUTE, requireApiKey({ scopes: PROFILE_ROUTES.read.scopes, resource }), (c) =>
    c.json(readProfile(c.req.param("slug"), c.get("keyward").principal)),
  );
  app.put(PROFILE_ROUTE, requireApiKey({ scopes: PROFILE_ROUTES.update.scopes, resource }), (c) =>
    c.json(updateProfile(c.req.param("slug"), c.get("keyward").principal)),
  );
  app.all(PROFILE_ROUTE, (c) =>
    c.json({ detail: "Method Not Allowed", code: "method_not_allowed" }, 405, {
      Allow: "GET, HEAD, PUT",
    }),
  );

  app.notFound((c) => c.json({ detail: "Not Found", code: "route_not_found" }, 404));
  app.onError((error, c) => {
    console.error("demo:", error);
    return c.json({ detail: "Internal server error", code: "internal" }, 500);
  });
  return app;
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
