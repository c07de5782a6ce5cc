/**
 * A key brought in by `imports()` on PostgreSQL, where its rehash to Keyward's hash is a write that
 * lands after the request that found it: its first use is an exchange for a token, which is
 * admitted, also once the rehash landed, and refused once the key is revoked.
 */
import { createHash, randomBytes } from "node:crypto";
import { combineStores, createKeyward, memoryStore } from "@keyward/core";
import { agentTokens } from "@keyward/core/agent-tokens";
import { imports } from "@keyward/core/imports";
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrate, postgresStore } from "../src/index.js";
import {
  describeOnServer,
  dropSchema,
  serverPool,
  uniqueSchema,
  waitFor,
} from "./support/databases.js";

const audience = "https://api.example.com/mcp";

describeOnServer("an imported key exchanged for a token on PostgreSQL", () => {
  const pool = serverPool();
  const schema = uniqueSchema("agent_tokens_imported");
  let close = async () => {};
  beforeAll(async () => {
    await migrate(pool, { schema });
  });
  afterAll(async () => {
    await close();
    await dropSchema(pool, schema);
    await pool.end();
  });

  it("exchanges at its first use, before the rehash lands, and the token holds after it until the key is revoked", async () => {
    const store = postgresStore({ client: pool, schema });
    await store.ready;
    const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ]);
    const k1 = await crypto.subtle.exportKey("jwk", pair.privateKey);
    const keyward = createKeyward({
      store: combineStores(store, memoryStore()),
      scopes: { "profile:read": "Read profiles" },
      tiers: { free: { rateLimit: { limit: 1_000, window: "1m" } } },
      jwt: false,
      logger: false,
      keys: { pepper: "keyward-pepper-0123456789abcdef-0123" },
      features: [
        imports({ prefixes: ["ba_"] }),
        agentTokens({ signingKeys: { current: "k1", keys: { k1 } } }),
      ],
    });
    close = () => keyward.close();
    const secret = `ba_${randomBytes(32).toString("hex")}`;
    const legacyHash = createHash("sha256").update(secret).digest("hex");
    const { importedIds } = await keyward.imports.importKeys([
      {
        hash: { value: legacyHash, algorithm: "sha256", encoding: "hex" },
        owner: "alice",
        scopes: ["profile:read"],
        tier: "free",
      },
    ]);
    const id = importedIds[0]!;
    const exchange = async () => {
      const response = await keyward.handle(
        new Request("http://localhost/api/v1/api-keys/tokens", {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
          body: JSON.stringify({ audience }),
        }),
      );
      return { status: response.status, body: (await response.json()) as { token?: string } };
    };
    const onMcp = (token: string) =>
      keyward.verify(`Bearer ${token}`, { audience, route: "POST /mcp", scopes: ["profile:read"] });

    const first = await exchange();
    expect(first.status).toBe(200);
    expect((await onMcp(first.body.token!)).ok).toBe(true);
    await waitFor(async () => (await store.keys.findById(id))?.secretHash !== legacyHash);
    expect((await onMcp(first.body.token!)).ok).toBe(true);
    expect((await exchange()).status).toBe(200);

    await keyward.keys.revoke("alice", id);
    const refused = await onMcp(first.body.token!);
    expect(refused.ok || refused.error.detail).toBe("API key has been revoked");
    expect((await exchange()).status).toBe(401);
  });
});
