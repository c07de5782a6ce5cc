/**
 * The demo app on Express: `keywardRouter` serves the six key-management endpoints, and
 * `requireApiKey` guards the two profile routes, recording usage under their route template.
 * `keywardNotFound` and `keywardErrorHandler` answer everything else, a body `express.json()`
 * refuses included, as `{"detail": ...}` instead of Express's HTML pages.
 */
import type { Keyward } from "@keyward/core";
import {
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

type ProfileParams = { slug: string };

/** What a profile route is about: a key limited to some profiles gets 403 for the others. */
const resource = (req: Request) => profileResource(String(req.params.slug));

export function createApp(keyward: Keyward): Express {
  const app = express();
  app.disable("x-powered-by");
  app.use(keywardRouter(keyward));

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
