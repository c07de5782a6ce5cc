/**
 * `keyward.authenticate(request, options)` forwards every `verify` option, those features declare
 * by augmenting `VerifyOptions` included: agentTokens()' `audience` admits an exchanged token for
 * its audience through `authenticate` exactly as through `verify`, and refuses it for another.
 */
import { describe, expect, it } from "vitest";
import { agentTokens } from "../features/agent-tokens/index.js";
import { memoryStore } from "../memory/memory-store.js";
import { createKeyward } from "./create-keyward.js";

const audience = "https://api.example.com/mcp";

async function setup() {
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "profile:read": "Read" },
    tiers: { free: { rateLimit: { limit: 1000, window: "1m" } } },
    jwt: false,
    logger: false,
    features: [agentTokens()],
  });
  const { key } = await keyward.keys.create({
    ownerId: "alice",
    accountTier: "free",
    name: "agent",
    scopes: ["profile:read"],
    tier: "free",
  });
  const exchanged = await keyward.handle(
    new Request("http://localhost/api/v1/api-keys/tokens", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ audience }),
    }),
  );
  expect(exchanged.status).toBe(200);
  const { token } = (await exchanged.json()) as { token: string };
  const request = () =>
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
  return { keyward, token, request };
}

describe("authenticate forwards every verify option", () => {
  it("admits an exchanged token for its audience, as verify does, and refuses it for another", async () => {
    const { keyward, token, request } = await setup();
    const options = { scopes: ["profile:read"], route: "POST /mcp", audience };
    const verified = await keyward.verify(`Bearer ${token}`, options);
    expect(verified.ok).toBe(true);
    const authenticated = await keyward.authenticate(request(), { ...options, route: "/mcp" });
    expect(authenticated.ok && authenticated.principal.kind).toBe("key");

    const elsewhere = await keyward.authenticate(request(), {
      ...options,
      audience: "https://other.example.com/mcp",
    });
    expect(elsewhere.ok).toBe(false);
    // Without the option, no exchanged token is accepted, through either.
    const { audience: _none, ...without } = options;
    expect((await keyward.verify(`Bearer ${token}`, without)).ok).toBe(false);
    expect((await keyward.authenticate(request(), without)).ok).toBe(false);
    await keyward.close();
  });
});
