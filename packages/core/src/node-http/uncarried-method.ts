import { KeywardError } from "../errors/keyward-error.js";
import { underBasePath } from "../http/handle.js";
import { createRouter } from "../http/router.js";
import { kernelEndpoints } from "../http/routes/index.js";

/** The kernel's endpoints: a feature's methods are never one of these either. */
const kernelRouter = createRouter(kernelEndpoints, []);

/** The Fetch standard's "forbidden methods": `new Request(url, { method })` throws for them. */
const uncarried = new Set(["CONNECT", "TRACE", "TRACK"]);

/**
 * Keyward's answer to a request whose method a Fetch `Request` cannot carry, so `toFetchRequest`
 * cannot translate it (Node parses `TRACE` and `CONNECT`; frameworks route them). No endpoint takes
 * any of them, so the answer is the one the router gives every method it lacks: 405 with `Allow` on
 * an endpoint's path, 404 elsewhere. `undefined` for every other method.
 *
 * @example
 * const refused = uncarriedMethodResponse(req.method, req.url, keyward.basePath);
 * if (refused) return send(refused);
 * return send(await keyward.handle(toFetchRequest(req, init)));
 */
export function uncarriedMethodResponse(
  method: string,
  path: string,
  basePath: string,
): Response | undefined {
  if (!uncarried.has(method.toUpperCase())) return undefined;
  // Parsed as `handle` parses `request.url`, dot segments and all; concatenated so that a path
  // such as `//host/x` stays a path.
  const { pathname } = new URL(`http://localhost${path.startsWith("/") ? "" : "/"}${path}`);
  const subpath = underBasePath(pathname, basePath);
  const match = subpath === null ? null : kernelRouter.match(subpath, method);
  const refusal =
    match && "error" in match ? match.error : new KeywardError("route_not_found", "Not Found");
  return refusal.toResponse();
}
