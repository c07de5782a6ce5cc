/**
 * `/mcp` on the Workers example in workerd, driven by the MCP SDK's client as on every Node
 * example (`describeMcp`, examples/shared/test/mcp-suite.ts): the Worker's resource comes from its
 * `KEYWARD_MCP_RESOURCE` binding, and its MCP server validates with the SDK's validator for
 * Workers (Ajv's generated code would be refused there). Then what the Worker adds: the signing key
 * is the isolate's or the binding's, never the request's (a per-request Keyward would otherwise
 * sign each token with a key the next request does not know), and a `Host` header naming another
 * server does not move the resource.
 */
import { request as httpRequest } from "node:http";
import { exportJWK, generateKeyPair, importJWK, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintToken } from "../../shared/src/token.js";
import { describeMcp } from "../../shared/test/mcp-suite.js";
import type { RunningWorker } from "../src/workerd.js";
import { runOnKnownPort } from "./support/free-port.js";

const jwtSecret = "workers-example-test-secret-of-at-least-32-bytes";

describeMcp(
  "/mcp on the Workers example in workerd",
  async () => {
    let output = "";
    const worker = await runOnKnownPort((origin) => ({
      bindings: { KEYWARD_JWT_SECRET: jwtSecret, KEYWARD_MCP_RESOURCE: `${origin}/mcp` },
      fromSource: true,
      onOutput: (text) => {
        output += text;
      },
    }));
    return {
      origin: worker.origin,
      url: worker.origin.replace("//127.0.0.1:", "//localhost:"),
      async stop() {
        await worker.stop();
        expect(output).not.toMatch(/uncaught exception|EvalError/i);
      },
    };
  },
  { jwtSecret },
);

describe("the Workers example's token signing key", () => {
  let worker: RunningWorker;
  let signingJwk: Record<string, unknown>;

  beforeAll(async () => {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    signingJwk = { ...(await exportJWK(privateKey)), kid: "test-2026" };
    worker = await runOnKnownPort((origin) => ({
      bindings: {
        KEYWARD_JWT_SECRET: jwtSecret,
        KEYWARD_MCP_RESOURCE: `${origin}/mcp`,
        KEYWARD_TOKEN_SIGNING_KEY: JSON.stringify(signingJwk),
      },
      fromSource: true,
      onOutput: () => {},
    }));
  }, 60_000);
  afterAll(() => worker?.stop());

  const createKey = async () => {
    const session = await mintToken({ sub: "alice", tier: "free", secret: jwtSecret });
    const response = await fetch(`${worker.origin}/api/v1/api-keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${session}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "agent", scopes: ["profile:read"], tier: "free" }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { key: string }).key;
  };
  const exchange = async (key: string, audience: string) => {
    const response = await fetch(`${worker.origin}/api/v1/api-keys/tokens`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ audience }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { token: string }).token;
  };
  const mcpHeaders = (token: string) => ({
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  });
  const listToolsBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  const listTools = (token: string) =>
    fetch(`${worker.origin}/mcp`, {
      method: "POST",
      headers: mcpHeaders(token),
      body: listToolsBody,
    });
  /** A request with the `Host` header given (fetch sends the URL's own whatever it is told). */
  const withHost = (
    host: string,
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
      (resolve, reject) => {
        const sent = httpRequest(
          `${worker.origin}${path}`,
          { method: init.method ?? "GET", headers: { ...init.headers, host } },
          (response) => {
            let body = "";
            response.setEncoding("utf8");
            response.on("data", (chunk: string) => {
              body += chunk;
            });
            response.on("end", () =>
              resolve({ status: response.statusCode!, headers: response.headers, body }),
            );
          },
        );
        sent.once("error", reject);
        sent.end(init.body);
      },
    );

  it("signs with KEYWARD_TOKEN_SIGNING_KEY: the JWKS publishes it, and its public key verifies the tokens", async () => {
    const jwks = (await (await fetch(`${worker.origin}/api/v1/api-keys/jwks.json`)).json()) as {
      keys: { kid: string }[];
    };
    expect(jwks.keys.map((key) => key.kid)).toEqual(["test-2026"]);
    const token = await exchange(await createKey(), `${worker.origin}/mcp`);
    const { d: _, ...publicJwk } = signingJwk;
    const { payload, protectedHeader } = await jwtVerify(
      token,
      await importJWK(publicJwk, "ES256"),
      { audience: `${worker.origin}/mcp` },
    );
    expect(protectedHeader.kid).toBe("test-2026");
    expect(payload.sub).toBe("alice");
    expect((await listTools(token)).status).toBe(200);
  });

  it("takes the resource from its binding, not from the Host header", async () => {
    const key = await createKey();
    const elsewhere = await exchange(key, "http://other.example/mcp");
    // The request says it is for other.example, as the token does: still refused.
    const refused = await withHost("other.example", "/mcp", {
      method: "POST",
      headers: mcpHeaders(elsewhere),
      body: listToolsBody,
    });
    expect(refused.status).toBe(401);
    expect(String(refused.headers["www-authenticate"])).toContain(
      `resource_metadata="${worker.origin}/.well-known/oauth-protected-resource"`,
    );
    // The same Host with a token for the Worker's own resource is served: the header is not read.
    const own = await exchange(key, `${worker.origin}/mcp`);
    const served = await withHost("other.example", "/mcp", {
      method: "POST",
      headers: mcpHeaders(own),
      body: listToolsBody,
    });
    expect(served.status).toBe(200);
    const metadata = await withHost("other.example", "/.well-known/oauth-protected-resource");
    expect((JSON.parse(metadata.body) as { resource: string }).resource).toBe(
      `${worker.origin}/mcp`,
    );
  });
});
