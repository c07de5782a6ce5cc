/**
 * The demo's MCP server (Streamable HTTP, stateless): one tool, `get_profile { slug }`, answering
 * what `GET /api/v1/profiles/:slug` answers, for the caller the guard admitted. A server and a
 * transport per request, as the SDK's stateless mode has it: nothing is kept between requests, so
 * every request is authenticated on its own.
 */
import type { Principal } from "@keyward/core";
import { readProfile } from "@keyward/testing/demo-contract";
import type { ServerOptions } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";

/** The scope the tool needs, which the guard of `/mcp` asks of every request. */
export const MCP_SCOPES = ["profile:read"] as const;

/**
 * What a runtime may change in the server: its JSON-schema validator. The SDK's default is Ajv,
 * which generates code at run time; Workers forbid that, so the Workers example gives the SDK's
 * `CfWorkerJsonSchemaValidator` (`@modelcontextprotocol/sdk/validation/cfworker`).
 */
export type McpServerOptions = Pick<ServerOptions, "jsonSchemaValidator">;

/** Answers one MCP request (the JSON-RPC body of a POST; GET and DELETE are refused with 405). */
export async function answerMcp(
  request: Request,
  principal: Principal,
  options: McpServerOptions = {},
): Promise<Response> {
  // Stateless: no stream to open (GET) and no session to end (DELETE).
  if (request.method !== "POST") {
    return Response.json(
      { detail: "Method Not Allowed", code: "method_not_allowed" },
      { status: 405, headers: { Allow: "POST" } },
    );
  }
  const server = new McpServer({ name: "keyward-demo", version: "0.4.0" }, options);
  server.registerTool(
    "get_profile",
    {
      title: "Get a profile",
      description:
        "A profile by its slug, as GET /api/v1/profiles/:slug answers it (needs profile:read)",
      inputSchema: { slug: z.string().min(1).max(100) },
    },
    async ({ slug }) => {
      const profile = readProfile(slug, principal);
      return {
        content: [{ type: "text", text: JSON.stringify(profile) }],
        structuredContent: profile,
      };
    },
  );
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    // The answer is complete (JSON, not a stream): nothing of this request is kept.
    await server.close();
  }
}
