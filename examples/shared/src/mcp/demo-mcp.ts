/**
 * `/mcp` as an OAuth protected resource (`protectedResource()`): its resource is the address the
 * server listens on, `http://127.0.0.1:<port>/mcp` (`localhost` taken as the same), known only once
 * it listens (`PORT=0` picks the port), so the examples build their routes with `demoMcp(keyward)`
 * and call `listening(port)` as soon as the port is known. Its metadata is served at
 * `/.well-known/oauth-protected-resource` and at RFC 9728's own location for the path,
 * `/.well-known/oauth-protected-resource/mcp`.
 */
import type { Keyward, VerifyOptions, VerifyResult } from "@keyward/core";
import { type ProtectedResource, protectedResource } from "@keyward/core/agent-tokens";
import { MCP_SCOPES } from "./mcp-server.js";

export const MCP_PATH = "/mcp";
export const MCP_METADATA_PATHS = [
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp",
] as const;

export interface DemoMcp {
  /** Sets the resource from the port the server listens on. */
  listening(port: number): void;
  /** The resource, once listening. */
  resource(): ProtectedResource;
  /** The instance as `/mcp` sees it, for the adapter's guard (usable before `listening`). */
  guard: Keyward;
  /** The metadata document, for `GET` on either of `MCP_METADATA_PATHS`. */
  metadataResponse(): Response;
}

export function demoMcp(keyward: Keyward): DemoMcp {
  let current: { resource: ProtectedResource; guard: Keyward } | undefined;
  const now = () => {
    if (current === undefined) throw new Error("demoMcp: `/mcp` answered before listening(port)");
    return current;
  };
  // Each member by name: the guard is the resource's view, built once the port is known.
  const guard: Keyward = {
    get keys() {
      return keyward.keys;
    },
    get usage() {
      return keyward.usage;
    },
    verify: (
      authorization: string | null | undefined,
      options?: VerifyOptions,
    ): Promise<VerifyResult> => now().guard.verify(authorization, options),
    authenticate: (request: Request, options?: VerifyOptions) =>
      now().guard.authenticate(request, options),
    assertScopes: (scopes) => keyward.assertScopes(scopes),
    assertEnvironment: (environment) => keyward.assertEnvironment(environment),
    hasSession: keyward.hasSession,
    handle: (request) => keyward.handle(request),
    serves: (pathname) => keyward.serves(pathname),
    basePath: keyward.basePath,
    schemas: keyward.schemas,
    close: () => keyward.close(),
  };
  return {
    listening(port) {
      const resource = protectedResource({
        resource: `http://127.0.0.1:${port}${MCP_PATH}`,
        scopes: [...MCP_SCOPES],
        name: "Keyward demo MCP server",
        metadataUrl: `http://127.0.0.1:${port}${MCP_METADATA_PATHS[0]}`,
      });
      current = { resource, guard: resource.guard(keyward) };
    },
    resource: () => now().resource,
    guard,
    metadataResponse: () => now().resource.metadataResponse(),
  };
}
