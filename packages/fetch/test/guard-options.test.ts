/**
 * withApiKey and withHold pass every `verify` option on, those a feature declares included: with
 * agentTokens() listed, `audience` admits a token exchanged for that audience and refuses one
 * exchanged for another.
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { agentTokens } from "@keyward/core/agent-tokens";
import { budgets } from "@keyward/core/budgets";
import { afterAll, describe, expect, it } from "vitest";
import { withApiKey, withHold } from "../src/index.js";

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

const mcp = withApiKey(
  keyward,
  { route: "/mcp", scopes: ["profile:read"], audience },
  (_request, principal) => Response.json({ kind: principal.kind }),
);
const plain = withApiKey(keyward, { route: "/plain", scopes: ["profile:read"] }, () =>
  Response.json({ ok: true }),
);
afterAll(() => keyward.close());

const post = (path: string, token: string) =>
  (path === "/mcp" ? mcp : plain)(
    new Request(`http://localhost${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    }),
  );

describe("withApiKey and the options features declare", () => {
  it("admits a token exchanged for the guard's audience, and refuses one for another", async () => {
    const admitted = await post("/mcp", await tokenFor(audience));
    expect(admitted.status).toBe(200);
    expect(await admitted.json()).toEqual({ kind: "key" });
    expect((await post("/mcp", await tokenFor("https://other.example.com"))).status).toBe(401);
    // A guard without the option takes no exchanged token.
    expect((await post("/plain", await tokenFor(audience))).status).toBe(401);
  });
});

describe("withHold and the options features declare", () => {
  it("reserves for a token exchanged for the guard's audience, and refuses one for another", async () => {
    const held = withHold(
      keyward,
      { route: "/mcp", scopes: ["profile:read"], audience, reserve: () => 10 },
      async (_request, principal, hold) => {
        await hold.settle(3);
        return Response.json({ kind: principal.kind, held: hold.amount });
      },
    );
    const call = async (token: string) =>
      held(
        new Request("http://localhost/mcp", {
          method: "POST",
          headers: { authorization: `Bearer ${token}` },
        }),
      );
    const admitted = await call(await tokenFor(audience));
    expect(admitted.status).toBe(200);
    expect(await admitted.json()).toEqual({ kind: "key", held: 10 });
    expect((await call(await tokenFor("https://other.example.com"))).status).toBe(401);
  });
});
