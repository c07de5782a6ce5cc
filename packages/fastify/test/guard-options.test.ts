/**
 * Fastify's requireApiKey and requireHold pass every `verify` option on, those a feature declares included: with
 * agentTokens() listed, `audience` admits a token exchanged for that audience and refuses one
 * exchanged for another, over a real socket.
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { agentTokens } from "@keyward/core/agent-tokens";
import { budgets } from "@keyward/core/budgets";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireApiKey, requireHold } from "../src/index.js";

const audience = "https://api.example.com/mcp";
const keyward = createKeyward({
  store: memoryStore(),
  scopes: { "profile:read": "Read profiles" },
  tiers: { free: { rateLimit: { limit: 1000, window: "1m" } } },
  jwt: false,
  logger: false,
  features: [
    agentTokens(),
    budgets({ perKey: { limit: 1000, period: "day" }, sweepInterval: false }),
  ],
});

async function tokenFor(tokenAudience: string): Promise<string> {
  const { key } = await keyward.keys.create({
    ownerId: "alice",
    accountTier: "free",
    name: "agent",
    scopes: ["profile:read"],
    tier: "free",
  });
  const response = await keyward.handle(
    new Request("http://localhost/api/v1/api-keys/tokens", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ audience: tokenAudience }),
    }),
  );
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

const app = Fastify();
beforeAll(async () => {
  app.post(
    "/mcp",
    { preHandler: requireApiKey(keyward, { scopes: ["profile:read"], audience }) },
    async (request) => ({ kind: request.keyward?.principal.kind }),
  );
  app.post(
    "/plain",
    { preHandler: requireApiKey(keyward, { scopes: ["profile:read"] }) },
    async () => ({ ok: true }),
  );
  app.post(
    "/held",
    { preHandler: requireHold(keyward, { scopes: ["profile:read"], audience, reserve: () => 10 }) },
    async (request) => ({
      kind: request.keyward?.principal.kind,
      held: request.keywardHold?.hold.amount,
    }),
  );
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await keyward.close();
});

const post = async (path: string, token: string) => {
  const reply = await app.inject({
    method: "POST",
    url: path,
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: reply.statusCode, json: async () => reply.json() };
};

describe("requireApiKey and the options features declare", () => {
  it("admits a token exchanged for the guard's audience, and refuses one for another", async () => {
    const admitted = await post("/mcp", await tokenFor(audience));
    expect(admitted.status).toBe(200);
    expect(await admitted.json()).toEqual({ kind: "key" });
    expect((await post("/mcp", await tokenFor("https://other.example.com"))).status).toBe(401);
    // A guard without the option takes no exchanged token.
    expect((await post("/plain", await tokenFor(audience))).status).toBe(401);
  });
});

describe("requireHold and the options features declare", () => {
  it("reserves for a token exchanged for the guard's audience, and refuses one for another", async () => {
    const admitted = await post("/held", await tokenFor(audience));
    expect(admitted.status).toBe(200);
    expect(await admitted.json()).toEqual({ kind: "key", held: 10 });
    expect((await post("/held", await tokenFor("https://other.example.com"))).status).toBe(401);
  });
});
