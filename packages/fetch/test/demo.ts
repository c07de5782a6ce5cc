/**
 * The demo contract (`@keyward/testing/demo-contract`) on the Fetch adapter: Keyward configured with the demo scopes and
 * tiers, and a tiny Fetch host serving the key-management endpoints and the two profile routes.
 */
import type { Keyward } from "@keyward/core";
import {
  type DemoKeyward,
  PROFILE_ROUTE,
  demoKeyward as sharedDemoKeyward,
} from "@keyward/testing";
import { profileResource, readProfile, updateProfile } from "@keyward/testing/demo-contract";
import type { ServerRequest } from "srvx";
import { keywardFetchHandler, withApiKey } from "../src/index.js";

export const jwtSecret = "fetch-adapter-test-secret-of-at-least-32-bytes";

/** A Keyward on the demo contract with an in-memory store (see `demoKeyward` of `@keyward/testing`). */
export function demoKeyward(overrides: Parameters<typeof sharedDemoKeyward>[1] = {}): DemoKeyward {
  return sharedDemoKeyward(jwtSecret, overrides);
}

const profilePath = /^\/api\/v1\/profiles\/([^/]+)$/;

/**
 * srvx puts the client's address on `request.ip` (the socket's, or with its `trustProxy` option,
 * the one trusted proxies forward); other servers have their own ways (docs/fetch.md).
 */
const clientIp = (request: Request) => (request as ServerRequest).ip;

/** Keyward's routes first, then the host's own: the composition `keywardFetchHandler` is for. */
export function demoHost(keyward: Keyward): (request: Request) => Promise<Response> {
  const keywardRoutes = keywardFetchHandler(keyward);
  const slugOf = (request: Request) =>
    decodeURIComponent(profilePath.exec(new URL(request.url).pathname)![1]!);
  const resource = (request: Request) => profileResource(slugOf(request));
  const getProfile = withApiKey(
    keyward,
    { scopes: ["profile:read"], route: PROFILE_ROUTE, clientIp, resource },
    (request, principal) => Response.json(readProfile(slugOf(request), principal)),
  );
  const putProfile = withApiKey(
    keyward,
    { scopes: ["profile:write"], route: PROFILE_ROUTE, clientIp, resource },
    async (request, principal) => {
      await request.json();
      return Response.json(updateProfile(slugOf(request), principal));
    },
  );
  return async (request) => {
    const answered = await keywardRoutes(request);
    if (answered) return answered;
    if (!profilePath.test(new URL(request.url).pathname)) {
      return Response.json({ detail: "Not Found", code: "route_not_found" }, { status: 404 });
    }
    if (request.method === "GET") return getProfile(request);
    if (request.method === "PUT") return putProfile(request);
    return Response.json(
      { detail: "Method Not Allowed", code: "method_not_allowed" },
      { status: 405, headers: { Allow: "GET, PUT" } },
    );
  };
}
