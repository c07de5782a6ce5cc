/**
 * `KEYWARD_TOKEN_SIGNING_KEY`: the demo's signing key for exchanged tokens, read as a JWK or a
 * PEM; and two demo servers on one database given the same key verify each other's tokens (the
 * MCP SDK's client on the second's `/mcp` with a token the first issued), publish one JWKS, while
 * a third without it (its own key, made at start) refuses them.
 */
import { generateKeyPairSync } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createLocalJWKSet, jwtVerify } from "jose";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverDatabaseUrl } from "../../../packages/postgres/test/support/databases.js";
import { loadDemoConfig } from "../src/config.js";
import { mintToken } from "../src/token.js";
import { parseTokenSigningKey } from "../src/token-signing-key.js";
import { type RunningExample, startExample } from "./run-example.js";

const ecPem = () =>
  generateKeyPairSync("ec", { namedCurve: "P-256" })
    .privateKey.export({ type: "pkcs8", format: "pem" })
    .toString();

describe("KEYWARD_TOKEN_SIGNING_KEY", () => {
  it("reads a PEM (EC P-256, Ed25519) or a JWK, the same key either way, named by its kid or demo", () => {
    const pem = ecPem();
    const fromPem = parseTokenSigningKey(pem)!;
    expect(fromPem.current).toBe("demo");
    const jwk = fromPem.keys.demo!;
    expect(jwk).toMatchObject({ kty: "EC", crv: "P-256" });
    const fromJwk = parseTokenSigningKey(JSON.stringify({ ...jwk, kid: "2026-12", use: "sig" }))!;
    expect(fromJwk).toEqual({ current: "2026-12", keys: { "2026-12": jwk } });

    const ed = generateKeyPairSync("ed25519")
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString();
    expect(parseTokenSigningKey(ed)!.keys.demo).toMatchObject({ kty: "OKP", crv: "Ed25519" });
    expect(parseTokenSigningKey(undefined)).toBeUndefined();
    expect(parseTokenSigningKey("  ")).toBeUndefined();
    expect(loadDemoConfig({}).tokenSigningKeys).toBeUndefined();
    expect(loadDemoConfig({ KEYWARD_TOKEN_SIGNING_KEY: pem }).tokenSigningKeys).toEqual(fromPem);
  });

  it("refuses a public key, another curve, RSA or text that is no key, never echoing the value", () => {
    const ec = parseTokenSigningKey(ecPem())!.keys.demo!;
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 })
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString();
    const p384 = generateKeyPairSync("ec", { namedCurve: "P-384" })
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString();
    const publicOnly = JSON.stringify({ ...ec, d: undefined });
    for (const bad of [rsa, p384, publicOnly, "not-a-key-secret-value", "-----BEGIN nonsense"]) {
      expect(() => loadDemoConfig({ KEYWARD_TOKEN_SIGNING_KEY: bad })).toThrow(
        /^KEYWARD_TOKEN_SIGNING_KEY must be a private key/,
      );
      try {
        parseTokenSigningKey(bad);
      } catch (error) {
        expect((error as Error).message).not.toContain("not-a-key-secret-value");
      }
    }
  });
});

/** A database of its own: the demo migrates the default schema of what `DATABASE_URL` names. */
const demoDatabase = `keyward_tokens_${Date.now().toString(36)}_${crypto.randomUUID().slice(0, 8)}`;

describe("two demo servers given one KEYWARD_TOKEN_SIGNING_KEY", () => {
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverDatabaseUrl() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const running: RunningExample[] = [];
  let first: RunningExample;
  let second: RunningExample;
  let alone: RunningExample;
  beforeAll(async () => {
    await admin(`CREATE DATABASE "${demoDatabase}"`);
    const shared = { DATABASE_URL: serverDatabaseUrl(demoDatabase) };
    const signing = { ...shared, KEYWARD_TOKEN_SIGNING_KEY: ecPem() };
    // One after the other: each migrates the database at start.
    first = await startExample("fetch", signing);
    running.push(first);
    second = await startExample("fetch", signing);
    running.push(second);
    alone = await startExample("fetch", shared);
    running.push(alone);
  }, 150_000);
  afterAll(async () => {
    await Promise.all(running.map((server) => server.stop()));
    await admin(`DROP DATABASE IF EXISTS "${demoDatabase}" WITH (FORCE)`);
  }, 60_000);

  const exchangeOn = async (server: RunningExample, key: string, audience: string) => {
    const response = await fetch(`${server.origin}/api/v1/api-keys/tokens`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ audience, scopes: ["profile:read"] }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { token: string }).token;
  };
  const connect = async (server: RunningExample, token: string) => {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: "keyward-test", version: "1.0.0" });
    const error = await client.connect(transport).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    return { client, error };
  };
  const jwksOf = async (server: RunningExample) =>
    (await (await fetch(`${server.origin}/api/v1/api-keys/jwks.json`)).json()) as {
      keys: Record<string, unknown>[];
    };

  it("verify each other's tokens and publish one key set; a server with its own key refuses them", async () => {
    const session = await mintToken({ sub: "alice", tier: "free" });
    const created = await fetch(`${first.origin}/api/v1/api-keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${session}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "agent", scopes: ["profile:read"], tier: "free" }),
    });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };

    const [firstKeys, secondKeys, aloneKeys] = await Promise.all(
      [first, second, alone].map(jwksOf),
    );
    expect(secondKeys).toEqual(firstKeys);
    expect(firstKeys.keys.map((jwk) => jwk.kid)).toEqual(["demo"]);
    expect(aloneKeys.keys[0]!.kid).toMatch(/^generated-/);

    // Issued by the first for the second's /mcp; the MCP SDK's client there.
    const token = await exchangeOn(first, key, `${second.origin}/mcp`);
    await jwtVerify(token, createLocalJWKSet(secondKeys), { audience: `${second.origin}/mcp` });
    const { client, error } = await connect(second, token);
    expect(error).toBeUndefined();
    const result = await client.callTool({ name: "get_profile", arguments: { slug: "alice" } });
    expect(result.structuredContent).toEqual({ slug: "alice", viewer: "alice" });
    await client.close();

    // The server that made its own key at start knows the key (one database), not the token's signer.
    const foreign = await exchangeOn(first, key, `${alone.origin}/mcp`);
    const refused = await connect(alone, foreign);
    expect(refused.error).toBeInstanceOf(StreamableHTTPError);
    expect((refused.error as StreamableHTTPError).code).toBe(401);
    const own = await exchangeOn(alone, key, `${alone.origin}/mcp`);
    const accepted = await connect(alone, own);
    expect(accepted.error).toBeUndefined();
    await accepted.client.close();
  });
});
