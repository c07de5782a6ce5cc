/**
 * Hono's requireApiKey and requireHold pass every `verify` option on, those a feature declares included: with
 * agentTokens() listed, `audience` admits a token exchanged for that audience and refuses one
 * exchanged for another (through `app.request`, mounted and with the instance given).
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { agentTokens } from "@keyward/core/agent-tokens";
import { budgets } from "@keyward/core/budgets";
import { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import {
  type KeywardEnv,
  type KeywardHoldEnv,
  keyward as mountKeyward,
  requireApiKey,
  requireHold,
} from "../src/index.js";

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

const app = new Hono<KeywardEnv>();
app.use(mountKeyward(keyward));
// Mounted instance, and the instance given to the guard: both forward the option.
app.post("/mcp", requireApiKey({ scopes: ["profile:read"], audience }), (c) =>
  c.json({ kind: c.get("keyward").principal.kind }),
);
app.post("/own/mcp", requireApiKey(keyward, { scopes: ["profile:read"], audience }), (c) =>
  c.json({ kind: c.get("keyward").principal.kind }),
);
app.post("/plain", requireApiKey({ scopes: ["profile:read"] }), (c) => c.json({ ok: true }));
const holding = new Hono<KeywardHoldEnv>();
holding.post(
  "/held",
  requireHold(keyward, { scopes: ["profile:read"], audience, reserve: () => 10 }),
  (c) => c.json({ kind: c.get("keyward").principal.kind, held: c.get("keywardHold").amount }),
);
app.route("/", holding);
afterAll(() => keyward.close());

const post = (path: string, token: string) =>
  app.request(path, { method: "POST", headers: { authorization: `Bearer ${token}` } });

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

describe("requireApiKey given the instance", () => {
  it("forwards the audience too", async () => {
    expect((await post("/own/mcp", await tokenFor(audience))).status).toBe(200);
    expect((await post("/own/mcp", await tokenFor("https://other.example.com"))).status).toBe(401);
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
