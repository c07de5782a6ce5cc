/**
 * Runs the HTTP conformance suite against core's own `handle`, with the demo contract's scopes,
 * tiers and host routes served by a tiny Fetch router, all in process.
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { afterAll } from "vitest";
import { demoKeywardConfig, describeHttpConformance, PROFILE_ROUTE } from "../src/index.js";

const jwtSecret = "conformance-suite-secret-of-at-least-32-bytes";

const keyward = createKeyward({
  store: memoryStore(),
  ...demoKeywardConfig(jwtSecret),
});
afterAll(() => keyward.close());

const profilePath = /^\/api\/v1\/profiles\/([^/]+)$/;
const profileScopes: Record<string, string> = { GET: "profile:read", PUT: "profile:write" };

/** The demo host: Keyward's endpoints under its base path, and two profile routes it guards. */
async function demoHost(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  if (pathname === keyward.basePath || pathname.startsWith(`${keyward.basePath}/`)) {
    return keyward.handle(request);
  }
  const slug = profilePath.exec(pathname)?.[1];
  if (slug === undefined) return Response.json({ detail: "Not Found" }, { status: 404 });
  const scope = profileScopes[request.method];
  if (scope === undefined) {
    return Response.json(
      { detail: "Method Not Allowed" },
      { status: 405, headers: { Allow: "GET, PUT" } },
    );
  }
  const result = await keyward.authenticate(request, { scopes: [scope], route: PROFILE_ROUTE });
  if (!result.ok) return result.error.toResponse(result.headers);
  const user = result.principal.userId;
  const body =
    request.method === "GET"
      ? { slug: decodeURIComponent(slug), viewer: user }
      : { slug: decodeURIComponent(slug), updatedBy: user };
  return Response.json(body, { headers: result.headers });
}

describeHttpConformance("core handle", { fetch: demoHost, jwtSecret });
