import type { InternalKeysApi } from "../api/keys-api.js";
import type { createVerify } from "../auth/verify.js";
import { internalError, isKeywardError, KeywardError } from "../errors/keyward-error.js";
import type { KeywardContext } from "../keyward/context.js";
import { isCrossSiteWrite } from "./cross-site.js";
import type { Router } from "./router.js";

const notFound = new KeywardError("route_not_found", "Not Found");

export interface HandleOptions {
  /** Normalised by `createKeyward`: starts with "/", no trailing slash. */
  basePath: string;
  bodyLimit: number;
  /**
   * The features' own routes by subpath (`FeatureParts.routes`): they authenticate their requests
   * themselves, so they are answered before the session checks.
   */
  featureRoutes: ReadonlyMap<string, (request: Request) => Promise<Response>>;
  /** The kernel's and the features' endpoints by path and method. */
  router: Router;
}

/**
 * The key-management endpoints (the kernel's six and the features') as one Fetch handler. Order: route (404/405) → user session
 * (401, 403 for an API key; the session's account tier recorded on its keys) → rate limit per user
 * (429) → the endpoint. Errors become
 * `{"detail": ...}` bodies; rate-limit headers go on every response that got that far.
 */
export function createHandle(
  context: KeywardContext,
  keys: InternalKeysApi,
  verify: ReturnType<typeof createVerify>,
  options: HandleOptions,
) {
  const { basePath, router } = options;

  // Every 500's cause (a database error, say) is reported; the response reveals none of it.
  // Verification reports its own, so a failed session check is not reported twice.
  const report = (error: KeywardError, request: Request) => {
    if (error.status >= 500) {
      const { pathname } = new URL(request.url);
      context.reportFailure(
        `${request.method} ${pathname} failed (${error.status})`,
        error.cause ?? error,
        request,
      );
    }
  };

  return async function handle(request: Request): Promise<Response> {
    let headers: Record<string, string> = {};
    try {
      const { pathname } = new URL(request.url);
      const subpath = underBasePath(pathname, basePath);
      if (subpath === null) return notFound.toResponse();
      const featureRoute = options.featureRoutes.get(subpath);
      if (featureRoute) return await featureRoute(request);
      const match = router.match(subpath, request.method);
      if ("error" in match) return match.error.toResponse();
      // Answered before authentication: a preflight carries no credentials. The CORS headers
      // themselves are the host's to add (its CORS middleware, or a wrapper around handle).
      if ("options" in match) {
        return new Response(null, { status: 204, headers: { Allow: match.options } });
      }

      const authorization = request.headers.get("authorization");
      const session = context.session;
      if (session && authorization === null && isCrossSiteWrite(request, context.trustedOrigins)) {
        throw new KeywardError(
          "cross_site_request",
          "Cross-site request refused: this origin is not trusted for key management",
        );
      }
      const result = await verify(authorization, {
        managing: true,
        ...(session ? { session: () => session(request) } : {}),
      });
      headers = result.headers;
      if (!result.ok) return result.error.toResponse(headers);
      if (result.principal.kind !== "user")
        throw new Error("unreachable: API key on a management route");
      return await match.handler({
        request,
        user: result.principal,
        keyId: match.keyId ?? "",
        keys,
        context,
        bodyLimit: options.bodyLimit,
        headers,
      });
    } catch (thrown) {
      const error = isKeywardError(thrown) ? thrown : internalError(thrown);
      report(error, request);
      return error.toResponse(headers);
    }
  };
}

/** The path below the base path, or null when the request is not for us. */
export function underBasePath(pathname: string, basePath: string): string | null {
  if (pathname === basePath) return "";
  if (pathname.startsWith(`${basePath}/`)) return pathname.slice(basePath.length);
  return null;
}
