/**
 * A route as an OAuth 2.0 protected resource, as MCP's authorization spec (2025-06-18 and later)
 * asks of an MCP server: its metadata (RFC 9728) for `/.well-known/oauth-protected-resource`, and
 * a guard whose refusals carry the challenges a client acts on (`resource-challenge.ts`). The guard
 * takes an API key, a token exchanged for this resource (`agentTokens()`), or an access token from
 * one of the host's own authorization servers, each as one principal.
 *
 * `guard(keyward)` is the instance as this resource sees it, for any adapter's guard: its `verify`
 * declares the resource as the route's audience and answers with the resource's challenges.
 *
 * @example
 * const mcp = protectedResource({ resource: "https://api.example.com/mcp", scopes: ["profile:read"] });
 * app.get("/.well-known/oauth-protected-resource/mcp", (req, res) => res.json(mcp.metadata));
 * app.post("/mcp", requireApiKey(mcp.guard(keyward), { scopes: ["profile:read"] }), mcpHandler);
 */
import "./verify-audience.js";
import { readBearer } from "../../auth/bearer.js";
import {
  isPromise,
  type Pending,
  type PendingVerify,
  pendingVerify,
  verifyPending,
} from "../../auth/pending-verify.js";
import type { VerifyOptions, VerifyResult } from "../../auth/principal.js";
import type { Keyward } from "../../keyward/create-keyward.js";
import { routeWithMethod } from "../../usage/route-label.js";
import { type AuthorizationServer, accessTokenVerifier } from "./access-tokens.js";
import { withResourceChallenge } from "./resource-challenge.js";

export type { AuthorizationServer } from "./access-tokens.js";

export interface ProtectedResourceConfig {
  /** The resource's identifier, an absolute URL (`https://api.example.com/mcp`): its tokens' `aud`. */
  resource: string;
  /**
   * The authorization servers clients get tokens from, listed in the metadata. An entry with a
   * `jwksUrl` also has its access tokens (JWTs) accepted by the guard.
   */
  authorizationServers?: readonly AuthorizationServer[];
  /** The scopes the resource knows (`scopes_supported`). */
  scopes?: readonly string[];
  /** A name for people (`resource_name`). */
  name?: string;
  /**
   * Where the metadata is served; default the RFC 9728 location, the well-known path inserted
   * before the resource's path (`https://api.example.com/.well-known/oauth-protected-resource/mcp`).
   */
  metadataUrl?: string;
}

export interface ProtectedResource {
  readonly resource: string;
  /** The metadata document's URL, as every 401 names it. */
  readonly metadataUrl: string;
  /** The RFC 9728 metadata, as JSON. */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** The metadata as a response (`Cache-Control` one hour), for a Fetch router. */
  metadataResponse(): Response;
  /** The instance as this resource sees it, for any adapter's guard. */
  guard(keyward: Keyward): Keyward;
}

/** Throws a `TypeError` naming the field for a malformed `config`. */
export function protectedResource(config: ProtectedResourceConfig): ProtectedResource {
  if (typeof config !== "object" || config === null) {
    throw new TypeError("protectedResource(config): { resource, authorizationServers?, scopes? }");
  }
  const { resource } = config;
  let resourceUrl: URL;
  try {
    resourceUrl = new URL(resource);
  } catch {
    throw new TypeError(
      `protectedResource({ resource }): an absolute URL, not ${JSON.stringify(resource)}`,
    );
  }
  if (resourceUrl.hash !== "")
    throw new TypeError("protectedResource({ resource }): no fragment (RFC 8707)");
  const servers = config.authorizationServers ?? [];
  for (const server of servers) {
    const issuer = typeof server === "string" ? server : server?.issuer;
    if (typeof issuer !== "string" || !URL.canParse(issuer)) {
      throw new TypeError(
        "protectedResource({ authorizationServers }): each an issuer URL, or { issuer, jwksUrl }",
      );
    }
    if (typeof server === "object" && !URL.canParse(server.jwksUrl)) {
      throw new TypeError(
        `protectedResource({ authorizationServers }): the jwksUrl of ${issuer} is not a URL`,
      );
    }
  }
  const path = resourceUrl.pathname === "/" ? "" : resourceUrl.pathname;
  const metadataUrl =
    config.metadataUrl ?? `${resourceUrl.origin}/.well-known/oauth-protected-resource${path}`;
  const metadata = {
    resource,
    authorization_servers: servers.map((server) =>
      typeof server === "string" ? server : server.issuer,
    ),
    bearer_methods_supported: ["header"],
    ...(config.scopes === undefined ? {} : { scopes_supported: [...config.scopes] }),
    ...(config.name === undefined ? {} : { resource_name: config.name }),
  };
  const accessTokens = accessTokenVerifier(servers, resource);

  return {
    resource,
    metadataUrl,
    metadata,
    metadataResponse: () =>
      new Response(JSON.stringify(metadata), {
        headers: { "content-type": "application/json", "cache-control": "public, max-age=3600" },
      }),
    guard(keyward) {
      const pending: PendingVerify = (authorization, options = {}) => {
        const challenged = (result: VerifyResult) =>
          withResourceChallenge(result, metadataUrl, options.scopes);
        const token = readBearer(authorization);
        const issuer = token === null ? undefined : accessTokens.issuerOf(token);
        if (issuer !== undefined)
          return accessTokens.verify(token!, issuer, options.scopes).then(challenged);
        const decided = verifyPending(keyward, authorization, { ...options, audience: resource });
        return isPromise(decided) ? decided.then(challenged) : challenged(decided);
      };
      const settled = (decided: Pending<VerifyResult>) =>
        isPromise(decided) ? decided : Promise.resolve(decided);
      const view: Keyward = Object.create(keyward, {
        verify: {
          value: (authorization: string | null | undefined, options?: VerifyOptions) =>
            settled(pending(authorization, options)),
        },
        authenticate: {
          value: (request: Request, options: VerifyOptions = {}) => {
            const authorization = request.headers.get("authorization");
            if (authorization === null) {
              return keyward
                .authenticate(request, options)
                .then((result) => withResourceChallenge(result, metadataUrl, options.scopes));
            }
            const route =
              options.route === undefined
                ? undefined
                : routeWithMethod(request.method, options.route);
            return settled(pending(authorization, { ...options, route }));
          },
        },
        [pendingVerify]: { value: pending },
      });
      return view;
    },
  };
}
