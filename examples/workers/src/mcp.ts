/**
 * `/mcp` on the Worker: the demo's MCP server (`answerMcp`, one tool, `get_profile`) guarded as an
 * OAuth protected resource (`protectedResource()`), its metadata at the two well-known paths.
 *
 * The resource, which exchanged tokens must name as their audience, comes from the
 * `KEYWARD_MCP_RESOURCE` binding (`https://api.example.com/mcp`), never from the request: a
 * resource read from the `Host` header would be whatever the client claims, so a token exchanged
 * for another server's audience would pass here with that server's name in `Host`. Unset, `/mcp`
 * and its metadata are not served (404), and the Worker says why once per isolate.
 *
 * The MCP SDK's server validates JSON schemas with Ajv by default, which compiles each schema to
 * code at run time: Workers refuse that (`EvalError`). So the server is given the SDK's validator
 * for Workers, `CfWorkerJsonSchemaValidator` (`@cfworker/json-schema`, no code generation). In
 * SDK 1.32 the server compiles a schema only for elicitation (a tool asking the client for input),
 * which `get_profile` does not do, so this demo answers the same with either (its tests pass with
 * Ajv too); a tool that elicits would need it. Ajv is still in the bundle: the SDK imports it.
 */
import type { Keyward } from "@keyward/core";
import { type ProtectedResource, protectedResource } from "@keyward/core/agent-tokens";
import { answerMcp, MCP_METADATA_PATHS, MCP_PATH, MCP_SCOPES } from "@keyward/example-demo/mcp";
import { withApiKey } from "@keyward/fetch";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";

const metadataPaths = new Set<string>(MCP_METADATA_PATHS);
/** One per isolate: it keeps nothing between calls (each schema is dereferenced per validator). */
const jsonSchemaValidator = new CfWorkerJsonSchemaValidator();
let resources: { text: string; resource: ProtectedResource } | undefined;
let warned = false;

/**
 * The protected resource for the binding's value, built once per isolate (its value does not
 * change while the isolate lives); undefined when the binding is unset. Throws a `TypeError` for
 * a value that is not an absolute URL.
 */
export function mcpResource(configured: string | undefined): ProtectedResource | undefined {
  const text = configured?.trim();
  if (!text) {
    if (!warned) {
      warned = true;
      console.warn(
        "keyward: KEYWARD_MCP_RESOURCE is not set, so /mcp is not served; set it to the URL " +
          "clients reach /mcp at (https://<your worker>/mcp)",
      );
    }
    return undefined;
  }
  if (resources?.text !== text) {
    resources = {
      text,
      resource: protectedResource({
        resource: text,
        scopes: [...MCP_SCOPES],
        name: "Keyward demo MCP server",
        // Where the Node examples publish it too: the origin's well-known path.
        metadataUrl: new URL(MCP_METADATA_PATHS[0], text).href,
      }),
    };
  }
  return resources.resource;
}

/** Answers `/mcp` and its metadata paths, or null for any other path. */
export function mcpRoute(
  keyward: Keyward,
  resource: ProtectedResource | undefined,
  clientIp: (request: Request) => string | undefined,
): (request: Request) => Promise<Response | null> {
  const answer = resource
    ? withApiKey(
        resource.guard(keyward),
        { scopes: [...MCP_SCOPES], accept: "api-key", route: MCP_PATH, clientIp },
        (request, principal) => answerMcp(request, principal, { jsonSchemaValidator }),
      )
    : undefined;
  return async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname !== MCP_PATH && !metadataPaths.has(pathname)) return null;
    if (resource === undefined || answer === undefined) return null; // not configured: 404
    if (pathname === MCP_PATH) return answer(request);
    // As on the Node examples: the metadata answers GET; anything else on its paths is a 404.
    return request.method === "GET" ? resource.metadataResponse() : null;
  };
}
