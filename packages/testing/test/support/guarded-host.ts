/**
 * A tiny Fetch host for the HTTP suite's own tests: Keyward's endpoints under its base path, and one
 * host route with an id segment, whose `GET` and `PUT` need the scopes given.
 */
import type { Keyward } from "@keyward/core";

export interface HostRoute {
  /** The route template, e.g. `/api/v1/profiles/:slug`; its one `:name` segment is the id. */
  template: string;
  /** The scope each method needs. */
  scopes: { GET: string; PUT: string };
  /** The kind of resource the id names (`profile`): passed as `resource` when given. */
  resourceKind?: string;
}

/**
 * @param clientIp the address every request stands for: in process there is no socket, so the
 *   suite's loopback client is named here, as a server would resolve it
 */
export function guardedHost(keyward: Keyward, route: HostRoute, clientIp = "127.0.0.1") {
  const pattern = new RegExp(`^${route.template.replace(/:[a-z]+/i, "([^/]+)")}$`);
  const scopes: Record<string, string> = route.scopes;
  return async (request: Request): Promise<Response> => {
    const { pathname } = new URL(request.url);
    if (pathname === keyward.basePath || pathname.startsWith(`${keyward.basePath}/`)) {
      return keyward.handle(request);
    }
    const slug = pattern.exec(pathname)?.[1];
    if (slug === undefined) return Response.json({ detail: "Not Found" }, { status: 404 });
    const scope = scopes[request.method];
    if (scope === undefined) {
      return Response.json(
        { detail: "Method Not Allowed" },
        { status: 405, headers: { Allow: "GET, PUT" } },
      );
    }
    const result = await keyward.authenticate(request, {
      scopes: [scope],
      route: route.template,
      clientIp,
      resource:
        route.resourceKind === undefined
          ? undefined
          : { [route.resourceKind]: decodeURIComponent(slug) },
    });
    if (!result.ok) return result.error.toResponse(result.headers);
    const principal = result.principal;
    const user = principal.kind === "key" ? principal.owner.id : principal.userId;
    const body =
      request.method === "GET"
        ? { slug: decodeURIComponent(slug), viewer: user }
        : { slug: decodeURIComponent(slug), updatedBy: user };
    return Response.json(body, { headers: result.headers });
  };
}
