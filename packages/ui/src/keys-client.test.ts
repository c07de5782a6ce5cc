import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createKeyward, type Keyward, memoryStore } from "@keyward/core";
import { lifecycle } from "@keyward/core/lifecycle";
import { toFetchRequest } from "@keyward/core/node-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The demo's token minting, as the browser test's page uses it.
import { mintToken } from "../../../examples/shared/src/token.js";
import { type KeywardServer, startKeywardServer } from "../test/keyward-server.js";
import { choicesOf, KeysApiError, KeysClient } from "./keys-client.js";

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
    const {
      data: [listed],
    } = await client.list({ limit: 50 });
    expect(listed).toMatchObject({ id: created.id, hint: `sk_live_…${created.key.slice(-4)}` });
    expect(listed).not.toHaveProperty("key");
    const rotated = await client.rotate(created.id);
    expect(rotated.key).not.toBe(created.key);
    expect(await client.usage(created.id)).toMatchObject({ keyId: created.id, totalRequests: 0 });
    expect(await client.revoke(created.id)).toMatchObject({ id: created.id, status: "revoked" });
    expect(reads).toBe(6); // scopes, create, list, rotate, usage, revoke
    // No OpenAPI document served (404): nothing to learn, and no failure.
    expect(await client.choices()).toEqual({});
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
    const unsigned = await refusal(new KeysClient(basePath, () => undefined).list({ limit: 1 }));
    expect(unsigned.status).toBe(401);
    expect(unsigned.message).toMatch(/Not signed in/);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await refusal(
      new KeysClient(`http://127.0.0.1:${port}/api/v1/api-keys`, () => "t").list({ limit: 1 }),
    );
    expect(unreachable.status).toBe(0);
    expect(unreachable.message).toMatch(/Could not reach the server/);
  });
});

describe("KeysClient against a server configured as the demo (organizations, updates, events…)", () => {
  let server: KeywardServer;
  let basePath = "";
  beforeAll(async () => {
    server = await startKeywardServer();
    basePath = `${server.origin}/api/v1/api-keys`;
  });
  afterAll(() => server.close());

  it("creates an organization's key in an environment with an allowlist, pages, updates and reads the audit log", async () => {
    const token = await server.session({
      sub: `bob-${crypto.randomUUID()}`,
      tier: "free",
      orgs: [{ id: "acme-client", role: "admin", tier: "pro" }],
    });
    const client = new KeysClient(basePath, () => token);
    const created = await client.create({
      name: "org key",
      scopes: ["profile:read"],
      tier: "pro",
      organizationId: "acme-client",
      environment: "test",
      allowedIps: ["127.0.0.1", "10.0.0.0/8"],
    });
    expect(created).toMatchObject({
      owner: { type: "organization", id: "acme-client" },
      environment: "test",
      allowedIps: ["127.0.0.1", "10.0.0.0/8"],
    });
    expect(created.key).toMatch(/^sk_test_/);
    const second = await client.create({
      name: "org key 2",
      scopes: ["profile:read"],
      tier: "free",
      organizationId: "acme-client",
    });
    // Pages, newest first; the person's own list does not hold the organization's keys.
    const first = await client.list({ organizationId: "acme-client", limit: 1 });
    expect(first.data.map((key) => key.id)).toEqual([second.id]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const next = await client.list({
      organizationId: "acme-client",
      limit: 1,
      cursor: first.nextCursor,
    });
    expect(next).toEqual({ data: [expect.objectContaining({ id: created.id })], nextCursor: null });
    expect((await client.list({ limit: 10 })).data).toEqual([]);

    const disabled = await client.update(created.id, { name: "renamed", enabled: false });
    expect(disabled).toMatchObject({ name: "renamed", status: "disabled" });
    const enabled = await client.update(created.id, { enabled: true, allowedIps: null });
    expect(enabled.status).toBe("active");
    expect(enabled).not.toHaveProperty("allowedIps");

    // Newest first, two a page; one update's events share a time, so their order is the server's.
    const events = await client.events(created.id, { limit: 2 });
    expect(events.data.map((event) => event.type).sort()).toEqual(["key.enabled", "key.updated"]);
    const older = await client.events(created.id, { limit: 10, cursor: events.nextCursor });
    const types = older.data.map((event) => event.type);
    expect(types.slice(0, 2).sort()).toEqual(["key.disabled", "key.updated"]);
    expect(types.slice(2)).toEqual(["key.created"]);
    expect(older.nextCursor).toBeNull();
    expect(JSON.stringify([events, older])).not.toContain(created.key);
  });

  it("reads the tiers, in order, the environments and whether keys can change from the OpenAPI document", async () => {
    const client = new KeysClient(basePath, () => "any token");
    expect(await client.choices()).toEqual({
      tiers: ["free", "pro", "enterprise"],
      environments: ["live", "test"],
      keyUpdates: true,
      maxGracePeriodSeconds: 604_800,
    });
    expect(choicesOf(undefined)).toEqual({});
    expect(choicesOf({ components: { schemas: {} } })).toEqual({ keyUpdates: false });
  });
});
