import type { Keyward } from "@keyward/core";
import { toFetchRequest, uncarriedMethodResponse } from "@keyward/core/node-http";
import express, { type Request, type Router } from "express";
import { keptRawBody } from "./raw-body.js";
import { sendResponse } from "./send-response.js";

/**
 * An Express router serving Keyward's six key-management endpoints under `keyward.basePath`
 * (relative to where the router is mounted; mount it at the root and it is the public path).
 * Every other request passes straight on with `next()`, so it can sit in front of the host's routes.
 *
 * It works whether or not a body parser ran first: an unread body is streamed to Keyward, which
 * enforces its own size limit (413); a body `express.json()` already parsed is serialised again,
 * unless the parser kept its bytes with `verify: keepRawBody` (needed for signed bodies: GitHub's
 * secret-scanning reports).
 *
 * @example
 * const app = express();
 * app.use(keywardRouter(keyward)); // before express.json(), ideally: see docs/express.md
 * app.use(express.json());
 */
export function keywardRouter(keyward: Keyward): Router {
  const router = express.Router();
  const basePath = keyward.basePath;
  router.use((req, res, next) => {
    const path = req.url;
    const query = path.indexOf("?");
    const pathname = query === -1 ? path : path.slice(0, query);
    if (!keyward.serves(pathname)) {
      next();
      return;
    }
    const refused = uncarriedMethodResponse(req.method, path, basePath);
    if (refused) {
      sendResponse(res, refused).catch(next);
      return;
    }
    let request: globalThis.Request;
    try {
      // Bytes a parser's `verify: keepRawBody` kept come first: a signed body must arrive unchanged.
      const parsed = bodyAlreadyRead(req)
        ? { parsedBody: { value: keptRawBody(req) ?? (req.body as unknown) } }
        : {};
      request = toFetchRequest(req, {
        origin: `${req.protocol}://${req.headers.host ?? "localhost"}`,
        path,
        ...parsed,
      });
    } catch (error) {
      next(error);
      return;
    }
    keyward
      .handle(request)
      .then((response) => sendResponse(res, response))
      .catch(next);
  });
  return router;
}

/**
 * Whether a body parser already consumed the stream: any reader that did (body-parser, multer, your
 * own) leaves it ended, without our relying on a parser's private marks. Express 4's
 * `express.json()` sets `req.body = {}` even when it skips a request, so `req.body` alone says
 * nothing.
 */
function bodyAlreadyRead(req: Request): boolean {
  return req.readableEnded;
}
