/**
 * The demo app on Express: `keywardRouter` serves the six key-management endpoints, and
 * `requireApiKey` guards the two profile routes, recording usage under their route template.
 * `keywardNotFound` and `keywardErrorHandler` answer everything else, a body `express.json()`
 * refuses included, as `{"detail": ...}` instead of Express's HTML pages. `/mcp` is an MCP server
 * guarded as an OAuth protected resource (`demoMcp`), its metadata at the well-known paths.
 */
import type { Keyward } from "@keyward/core";
import type { BudgetsApi } from "@keyward/core/budgets";
import { toFetchRequest } from "@keyward/core/node-http";
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
import {
  keywardErrorHandler,
  keywardNotFound,
  keywardRouter,
  requireApiKey,
} from "@keyward/express";
import express, { type Express, type Request, type Response } from "express";
import { addCompletions } from "./completions.js";

type ProfileParams = { slug: string };

/** What a profile route is about: a key limited to some profiles gets 403 for the others. */
const resource = (req: Request) => profileResource(String(req.params.slug));

/** `mcp.listening(port)` must be called once the server listens (the resource names the port). */
export function createApp(
  keyward: Keyward & { budgets: BudgetsApi },
  mcp: DemoMcp = demoMcp(keyward),
): Express {
  const app = express();
  app.disable("x-powered-by");
  app.use(keywardRouter(keyward));

  app.get([...MCP_METADATA_PATHS], (_req, res, next) => {
    sendFetchResponse(res, mcp.metadataResponse()).catch(next);
  });
  app.all(
    MCP_PATH,
    requireApiKey(mcp.guard, { scopes: [...MCP_SCOPES], accept: "api-key" }),
    (req: Request, res: Response, next) => {
      const request = toFetchRequest(req, {
        origin: `http://${req.get("host")}`,
        path: req.originalUrl,
      });
      answerMcp(request, req.keyward!.principal)
        .then((answer) => sendFetchResponse(res, answer))
        .catch(next);
    },
  );

  // POST /api/v1/completions (demo contract v0.4): reserve, stream, settle.
  addCompletions(app, keyward);

  app.get(
    PROFILE_ROUTE,
    requireApiKey(keyward, { scopes: PROFILE_ROUTES.read.scopes, resource }),
    (req: Request<ProfileParams>, res: Response) => {
      res.json(readProfile(req.params.slug, req.keyward!.principal));
    },
  );
  app.put(
    PROFILE_ROUTE,
    requireApiKey(keyward, { scopes: PROFILE_ROUTES.update.scopes, resource }),
    // After the guard, so a refused request's body is never parsed; the demo stores nothing, but a
    // real profile update reads its JSON, and its parser's errors are part of what clients see.
    express.json(),
    (req: Request<ProfileParams>, res: Response) => {
      res.json(updateProfile(req.params.slug, req.keyward!.principal));
    },
  );
  app.all(PROFILE_ROUTE, (_req, res) => {
    res
      .set("Allow", "GET, HEAD, PUT")
      .status(405)
      .json({ detail: "Method Not Allowed", code: "method_not_allowed" });
  });

  app.use(keywardNotFound());
  app.use(keywardErrorHandler());
  return app;
}

/** A Fetch `Response` (the MCP transport's, the metadata) written to Express's response. */
async function sendFetchResponse(res: Response, answer: globalThis.Response): Promise<void> {
  res.status(answer.status);
  answer.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  res.end(Buffer.from(await answer.arrayBuffer()));
}
