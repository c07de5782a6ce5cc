/**
 * requireApiKey and requireHold pass every `verify` option on, those a feature declares included: with
 * agentTokens() listed, `audience` admits a token exchanged for that audience and refuses one
 * exchanged for another, over a real socket.
 */
import type { AddressInfo } from "node:net";
import { createKeyward, memoryStore } from "@keyward/core";
import { agentTokens } from "@keyward/core/agent-tokens";
import { budgets } from "@keyward/core/budgets";
import express from "express";
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

let server: ReturnType<ReturnType<typeof express>["listen"]>;
let origin: string;
beforeAll(async () => {
  const app = express();
  app.post("/mcp", requireApiKey(keyward, { scopes: ["profile:read"], audience }), (req, res) => {
    res.json({ kind: req.keyward?.principal.kind });
  });
  app.post("/plain", requireApiKey(keyward, { scopes: ["profile:read"] }), (_req, res) => {
    res.json({ ok: true });
  });
  app.post(
    "/held",
    requireHold(keyward, { scopes: ["profile:read"], audience, reserve: () => 10 }),
    (req, res) => {
      res.json({ kind: req.keyward?.principal.kind, held: req.keywardHold?.hold.amount });
    },
  );
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await keyward.close();
});

const post = (path: string, token: string) =>
  fetch(`${origin}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}` } });

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
