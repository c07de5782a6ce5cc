/**
 * The demo's `/mcp` (the demo contract: an MCP server guarded by Keyward, one tool that needs
 * `profile:read`) driven by the MCP SDK's own client over Streamable HTTP: with a key, the tools are
 * listed and `get_profile` answers; without credentials a 401 whose `resource_metadata` the SDK
 * reads, and that metadata served; a key without `profile:read` gets a 403 naming it; a token
 * exchanged for `/mcp`'s resource works, one for another audience does not. Run on every Node
 * example (mcp.test.ts) and on the Workers example in workerd (examples/workers/test/mcp.test.ts).
 */

import {
  discoverOAuthProtectedResourceMetadata,
  extractResourceMetadataUrl,
  extractWWWAuthenticateParams,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintToken } from "../src/token.js";

/** A running example whose `/mcp` names `${origin}/mcp` as its resource. */
export interface McpTarget {
  /** `http://localhost:<port>`. */
  url: string;
  /** The same server by IPv4 address, `http://127.0.0.1:<port>`. */
  origin: string;
  stop(): Promise<void>;
}

export interface McpSuiteOptions {
  /** The secret the example verifies sessions with; default the demo's. */
  jwtSecret?: string;
}

export function describeMcp(
  name: string,
  start: () => Promise<McpTarget>,
  options: McpSuiteOptions = {},
): void {
  describe(name, () => {
    let example: McpTarget;
    let session: string;
    beforeAll(async () => {
      example = await start();
      session = await mintToken({
        sub: "alice",
        tier: "free",
        ...(options.jwtSecret ? { secret: options.jwtSecret } : {}),
      });
    }, 60_000);
    afterAll(() => example?.stop());

    const createKey = async (scopes: string[]) => {
      const response = await fetch(`${example.origin}/api/v1/api-keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${session}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "agent", scopes, tier: "free" }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { key: string }).key;
    };
    const exchange = async (key: string, audience: string) => {
      const response = await fetch(`${example.origin}/api/v1/api-keys/tokens`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ audience, scopes: ["profile:read"] }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { token: string }).token;
    };
    /** The SDK's client on `/mcp` with `token` as the bearer; every response's status and headers, kept. */
    const connect = async (token: string | undefined) => {
      const responses: Response[] = [];
      const transport = new StreamableHTTPClientTransport(new URL(`${example.url}/mcp`), {
        ...(token === undefined
          ? {}
          : { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
        fetch: async (url, init) => {
          const response = await fetch(url, init);
          // Status and headers only: a clone's unread body would keep the client's cancel() of a
          // 202's body waiting for ever (a teed stream is cancelled once both branches are).
          responses.push(
            new Response(null, { status: response.status, headers: response.headers }),
          );
          return response;
        },
      });
      const client = new Client({ name: "keyward-test", version: "1.0.0" });
      const connected = client.connect(transport).then(
        () => undefined,
        (error: unknown) => error,
      );
      return { client, responses, error: await connected };
    };

    it("lists the tools and calls get_profile with a key that has profile:read", async () => {
      const { client, error } = await connect(await createKey(["profile:read"]));
      expect(error).toBeUndefined();
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(["get_profile"]);
      const result = await client.callTool({ name: "get_profile", arguments: { slug: "alice" } });
      expect(result.structuredContent).toEqual({ slug: "alice", viewer: "alice" });
      await client.close();
    });

    it("answers 401 with resource_metadata without credentials, and serves that metadata", async () => {
      const { error, responses } = await connect(undefined);
      expect(error).toBeInstanceOf(StreamableHTTPError);
      expect((error as StreamableHTTPError).code).toBe(401);
      const refused = responses.at(-1)!;
      const metadataUrl = extractResourceMetadataUrl(refused);
      expect(metadataUrl?.href).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource$/,
      );
      const metadata = await discoverOAuthProtectedResourceMetadata(`${example.url}/mcp`, {
        resourceMetadataUrl: metadataUrl!,
      });
      expect(metadata.resource).toBe(`${example.origin}/mcp`);
      expect(metadata.scopes_supported).toEqual(["profile:read"]);
      // RFC 9728's own location for the path answers the same.
      const atPath = await fetch(`${example.origin}/.well-known/oauth-protected-resource/mcp`);
      expect(await atPath.json()).toEqual(metadata);
    });

    it("answers 403 naming the scope to a key without profile:read", async () => {
      const { error, responses } = await connect(await createKey(["profile:write"]));
      expect((error as StreamableHTTPError).code).toBe(403);
      const params = extractWWWAuthenticateParams(responses.at(-1)!);
      expect(params.error).toBe("insufficient_scope");
      expect(params.scope).toBe("profile:read");
      expect(params.resourceMetadataUrl).toBeInstanceOf(URL);
    });

    it("takes a token exchanged for /mcp's resource (either loopback name), not one for another audience", async () => {
      const key = await createKey(["profile:read", "profile:write"]);
      for (const audience of [`${example.origin}/mcp`, `${example.url}/mcp`]) {
        const { client, error } = await connect(await exchange(key, audience));
        expect(error).toBeUndefined();
        const result = await client.callTool({ name: "get_profile", arguments: { slug: "bob" } });
        expect(result.structuredContent).toEqual({ slug: "bob", viewer: "alice" });
        await client.close();
      }
      const { error, responses } = await connect(
        await exchange(key, "https://api.example.com/mcp"),
      );
      expect((error as StreamableHTTPError).code).toBe(401);
      expect(responses.at(-1)!.headers.get("www-authenticate")).toContain(
        "This token is for another audience",
      );
    });
  });
}
