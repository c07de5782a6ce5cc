import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createKeyward, type Keyward, memoryStore } from "@keyward/core";
import { lifecycle } from "@keyward/core/lifecycle";
import { toFetchRequest } from "@keyward/core/node-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The demo's token minting, as the browser test's page uses it.
import { mintToken } from "../../../examples/shared/src/token.js";
import { KeysApiError, KeysClient } from "./keys-client.js";

const secret = "a-keys-client-test-secret-of-at-least-32-bytes";

/** The `KeysApiError` a call rejects with; fails the test if it resolves. */
async function refusal(call: Promise<unknown>): Promise<KeysApiError> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`expected a refusal, got ${JSON.stringify(outcome)}`);
  expect(outcome.error).toBeInstanceOf(KeysApiError);
  return outcome.error as KeysApiError;
}

describe("KeysClient against a real Keyward server", () => {
  let keyward: Keyward;
  let server: Server;
  let basePath = "";

  beforeAll(async () => {
    keyward = createKeyward({
      store: memoryStore(),
      scopes: { "profile:read": "Read profiles", "profile:write": "Edit profiles" },
      tiers: {
        free: { rateLimit: { limit: 600, window: "1m" } },
        pro: { rateLimit: { limit: 600, window: "1m" } },
      },
      jwt: { secret },
      features: [lifecycle({ gracefulRotation: { maxGracePeriodSeconds: 86_400 } })],
    });
    server = createServer(async (req, res) => {
      const response = await keyward.handle(
        toFetchRequest(req, { origin: "http://127.0.0.1", path: req.url ?? "/" }),
      );
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    basePath = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/api-keys/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await keyward.close();
  });

  const session = (tier: "free" | "pro") =>
    mintToken({ sub: `user-${crypto.randomUUID()}`, tier, secret });

  it("creates, lists, rotates, reports usage and revokes, reading the token before each call", async () => {
    const token = await session("pro");
    let reads = 0;
    const client = new KeysClient(basePath, () => {
      reads++;
      return token;
    });
    expect((await client.scopes()).map((scope) => scope.name)).toEqual([
      "profile:read",
      "profile:write",
    ]);
    const created = await client.create({ name: "ci", scopes: ["profile:read"], tier: "free" });
    expect(created.key).toMatch(/^sk_live_/);
    const [listed] = await client.list();
    expect(listed).toMatchObject({ id: created.id, hint: `sk_live_…${created.key.slice(-4)}` });
    expect(listed).not.toHaveProperty("key");
    const rotated = await client.rotate(created.id);
    expect(rotated.key).not.toBe(created.key);
    expect(await client.usage(created.id)).toMatchObject({ keyId: created.id, totalRequests: 0 });
    expect(await client.revoke(created.id)).toMatchObject({ id: created.id, status: "revoked" });
    expect(reads).toBe(6); // scopes, create, list, rotate, usage, revoke
  });

  it("rotates with a grace: the record says until when; a grace over the server's maximum is a 422", async () => {
    const client = new KeysClient(basePath, await session("pro").then((token) => () => token));
    const created = await client.create({ name: "ci", scopes: ["profile:read"], tier: "free" });
    const before = Date.now();
    const rotated = await client.rotate(created.id, 3600);
    const until = Date.parse(rotated.previousSecretExpiresAt ?? "");
    expect(until).toBeGreaterThanOrEqual(before + 3_600_000 - 1_000);
    const error = await refusal(client.rotate(created.id, 86_401));
    expect(error.status).toBe(422);
    expect(error.messages).toEqual([
      "gracePeriodSeconds: Input should be less than or equal to 86400",
    ]);
    // Without a grace, no body at all: the record has no deadline.
    expect(await client.rotate(created.id)).not.toHaveProperty("previousSecretExpiresAt");
  });

  it("turns a 422 into one line per issue, naming the field", async () => {
    const client = new KeysClient(basePath, await session("pro").then((token) => () => token));
    const error = await refusal(
      client.create({ name: "  ", scopes: ["profile:read", "nope"], tier: "free" }),
    );
    expect(error.status).toBe(422);
    const messages = error.messages;
    expect(messages[0]).toBe("name: String should have at least 1 character");
    expect(messages.some((message) => message.startsWith("scopes"))).toBe(true);
  });

  it("keeps a 403's and a 410's detail as the API wrote it", async () => {
    const token = await session("free");
    const client = new KeysClient(basePath, () => token);
    const refused = await refusal(
      client.create({ name: "x", scopes: ["profile:read"], tier: "pro" }),
    );
    expect(refused.status).toBe(403);
    expect(typeof refused.detail).toBe("string");
    expect(refused.messages).toEqual([refused.detail]);

    const { id } = await client.create({ name: "x", scopes: ["profile:read"], tier: "free" });
    await client.revoke(id);
    const gone = await refusal(client.revoke(id));
    expect(gone.status).toBe(410);
    expect(gone.messages[0]).toMatch(/revoked/i);
  });

  it("calls nothing without a token, and reports an unreachable server as status 0", async () => {
    const unsigned = await refusal(new KeysClient(basePath, () => undefined).list());
    expect(unsigned.status).toBe(401);
    expect(unsigned.message).toMatch(/Not signed in/);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await refusal(
      new KeysClient(`http://127.0.0.1:${port}/api/v1/api-keys`, () => "t").list(),
    );
    expect(unreachable.status).toBe(0);
    expect(unreachable.message).toMatch(/Could not reach the server/);
  });
});
