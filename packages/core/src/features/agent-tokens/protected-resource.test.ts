/**
 * `protectedResource()`: its RFC 9728 metadata, and the guard's view of the instance: API keys,
 * tokens exchanged for the resource, access tokens of a listed authorization server (its JWKS served
 * here over HTTP), with the challenges of RFC 6750 and RFC 9728 on every refusal a client acts on.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPending } from "../../auth/pending-verify.js";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import { agentTokens, protectedResource } from "./index.js";

const resource = "http://127.0.0.1:4000/mcp";
const metadataUrl = "http://127.0.0.1:4000/.well-known/oauth-protected-resource/mcp";
let server: Server;
let issuer: string;
let serverKey: CryptoKey;

beforeAll(async () => {
  // The host's own authorization server, as far as a resource server sees it: its JWKS.
  const pair = await generateKeyPair("ES256", { extractable: true });
  serverKey = pair.privateKey;
  const jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "as-1", alg: "ES256" }] };
  server = createServer((_request, response) => {
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify(jwks));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

function setup() {
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "profile:read": "Read", "profile:write": "Write" },
    tiers: { free: { rateLimit: { limit: 1000, window: "1m" } } },
    jwt: false,
    logger: false,
    features: [agentTokens()],
  });
  const mcp = protectedResource({
    resource,
    authorizationServers: [{ issuer, jwksUrl: `${issuer}/jwks.json` }, "https://login.example.com"],
    scopes: ["profile:read"],
    name: "Demo MCP",
  });
  const guard = mcp.guard(keyward);
  const newKey = (scopes: string[]) =>
    keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "agent",
      scopes,
      tier: "free",
    });
  const exchange = async (key: string, audience: string) => {
    const response = await keyward.handle(
      new Request("http://localhost/api/v1/api-keys/tokens", {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
        body: JSON.stringify({ audience }),
      }),
    );
    return ((await response.json()) as { token: string }).token;
  };
  const accessToken = (claims: Record<string, unknown>) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "ES256", kid: "as-1", typ: "at+jwt" })
      .setIssuer(issuer)
      .setSubject("bob")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(serverKey);
  return { keyward, mcp, guard, newKey, exchange, accessToken };
}

const options = { scopes: ["profile:read"], route: "POST /mcp" };

describe("protectedResource()", () => {
  it("describes the resource as RFC 9728 asks, at the well-known location of its path", async () => {
    const { mcp } = setup();
    expect(mcp.metadataUrl).toBe(metadataUrl);
    expect(mcp.metadata).toEqual({
      resource,
      authorization_servers: [issuer, "https://login.example.com"],
      bearer_methods_supported: ["header"],
      scopes_supported: ["profile:read"],
      resource_name: "Demo MCP",
    });
    const response = mcp.metadataResponse();
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual(mcp.metadata);
    expect(() => protectedResource({ resource: "/mcp" })).toThrow(/absolute URL/);
    expect(() =>
      protectedResource({ resource, authorizationServers: [{ issuer: "nope", jwksUrl: "x" }] }),
    ).toThrow(/authorizationServers/);
  });

  it("answers 401 with resource_metadata, with and without a token, and 403 naming the scope", async () => {
    const { guard, newKey } = setup();
    const none = await guard.verify(undefined, options);
    expect(none.ok || none.headers["WWW-Authenticate"]).toBe(
      `Bearer resource_metadata="${metadataUrl}"`,
    );
    expect(none.ok || none.error.toResponse(none.headers).headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${metadataUrl}"`,
    );
    const { key } = await newKey(["profile:write"]);
    const wrong = await guard.verify(
      `Bearer ${key.slice(0, -4)}${key.endsWith("aaaa") ? "bbbb" : "aaaa"}`,
      options,
    );
    expect(wrong.ok || wrong.headers["WWW-Authenticate"]).toBe(
      `Bearer error="invalid_token", error_description="Invalid API key", resource_metadata="${metadataUrl}"`,
    );
    const lacking = await guard.verify(`Bearer ${key}`, options);
    expect(lacking.ok || lacking.error.status).toBe(403);
    expect(
      lacking.ok || lacking.error.toResponse(lacking.headers).headers.get("www-authenticate"),
    ).toBe(
      `Bearer error="insufficient_scope", scope="profile:read", resource_metadata="${metadataUrl}"`,
    );
  });

  it("admits an API key, a token exchanged for this resource (not another's), and the server's access token, each as one principal", async () => {
    const { guard, newKey, exchange, accessToken } = setup();
    const { key, id } = await newKey(["profile:read"]);
    const byKey = await guard.verify(`Bearer ${key}`, options);
    expect(byKey.ok && byKey.principal).toMatchObject({ kind: "key", keyId: id });
    // Through the adapters' path as well (`verifyPending`), and `authenticate`'s.
    const token = await exchange(key, "http://localhost:4000/mcp");
    const byToken = await verifyPending(guard, `Bearer ${token}`, options);
    expect(byToken.ok && byToken.principal).toMatchObject({
      kind: "key",
      keyId: id,
      userId: "alice",
    });
    const request = new Request("http://127.0.0.1:4000/mcp", {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(
      (await guard.authenticate(request, { scopes: ["profile:read"], route: "/mcp" })).ok,
    ).toBe(true);
    const other = await guard.verify(
      `Bearer ${await exchange(key, "https://elsewhere.example.com/mcp")}`,
      options,
    );
    expect(other.ok || other.headers["WWW-Authenticate"]).toContain(
      "This token is for another audience",
    );
    expect(other.ok || other.headers["WWW-Authenticate"]).toContain(
      `resource_metadata="${metadataUrl}"`,
    );

    const byServer = await guard.verify(
      `Bearer ${await accessToken({ aud: resource, scope: "profile:read" })}`,
      options,
    );
    expect(byServer.ok && byServer.principal).toMatchObject({ kind: "user", userId: "bob" });
    const narrow = await guard.verify(
      `Bearer ${await accessToken({ aud: resource, scope: "other" })}`,
      options,
    );
    expect(narrow.ok || narrow.headers["WWW-Authenticate"]).toBe(
      `Bearer error="insufficient_scope", scope="profile:read", resource_metadata="${metadataUrl}"`,
    );
    const elsewhere = await guard.verify(
      `Bearer ${await accessToken({ aud: "https://x.example.com", scope: "profile:read" })}`,
      options,
    );
    expect(elsewhere.ok || elsewhere.error.detail).toBe(
      "This access token is for another resource",
    );
  });

  it("leaves the instance itself as it was: its verify accepts no exchanged token without an audience", async () => {
    const { keyward, newKey, exchange } = setup();
    const { key } = await newKey(["profile:read"]);
    const token = await exchange(key, resource);
    const plain = await keyward.verify(`Bearer ${token}`, options);
    expect(plain.ok || plain.error.detail).toMatch(/declares no audience/);
    expect(plain.ok || plain.headers["WWW-Authenticate"]).not.toContain("resource_metadata");
  });
});
