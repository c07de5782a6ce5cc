/**
 * The demo app on Express: `keywardRouter` serves the six key-management endpoints, and
 * `requireApiKey` guards the two profile routes, recording usage under their route template.
 */
import type { Keyward } from "@keyward/core";
import { profilePath, profileRoutes, readProfile, updateProfile } from "@keyward/example-demo";
import { keywardRouter, requireApiKey } from "@keyward/express";
import express, {
  type ErrorRequestHandler,
  type Express,
  type Request,
  type Response,
} from "express";

type ProfileParams = { slug: string };

export function createApp(keyward: Keyward): Express {
  const app = express();
  app.disable("x-powered-by");
  app.use(keywardRouter(keyward));

  app.get(
    profilePath,
    requireApiKey(keyward, { scopes: profileRoutes.read.scopes }),
    (req: Request<ProfileParams>, res: Response) => {
      res.json(readProfile(req.params.slug, req.keyward!.principal));
    },
  );
  app.put(
    profilePath,
    requireApiKey(keyward, { scopes: profileRoutes.update.scopes }),
    (req: Request<ProfileParams>, res: Response) => {
      res.json(updateProfile(req.params.slug, req.keyward!.principal));
    },
  );
  app.all(profilePath, (_req, res) => {
    res.set("Allow", "GET, HEAD, PUT").status(405).json({ detail: "Method Not Allowed" });
  });

  app.use((_req, res) => {
    res.status(404).json({ detail: "Not Found" });
  });
  const answerInJson: ErrorRequestHandler = (error, _req, res, _next) => {
    const status = Number(error?.status ?? error?.statusCode ?? 500);
    if (status >= 500) console.error(error);
    res.status(status).json({ detail: status >= 500 ? "Internal server error" : error.message });
  };
  app.use(answerInJson);
  return app;
}
