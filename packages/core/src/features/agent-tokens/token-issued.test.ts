/**
 * An exchange is audited: with `events()` listed, `token.issued` is written to the key's audit log
 * (`keyward.events.list`, `GET {basePath}/{key_id}/events`) before the token is handed over, told
 * to `onEvent` and published on the bus once; an exchange whose event cannot be written hands over
 * no token. On the memory store; packages/postgres/test/agent-tokens.test.ts does the same on
 * PostgreSQL.
 */
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../../clock.js";
import type { KeywardEvent } from "../../event-model/event.js";
import type { KeywardFeature } from "../../feature-interface/feature.js";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import type { KeywardStore } from "../../storage/index.js";
import { events } from "../events/index.js";
import { agentTokens } from "./index.js";

const audience = "http://127.0.0.1:3000/mcp";
const secret = "a-test-secret-of-at-least-32-characters!";
const start = Date.parse("2026-12-01T00:00:00Z");
let k1: JWK;

beforeAll(async () => {
  k1 = await exportJWK((await generateKeyPair("ES256", { extractable: true })).privateKey);
});

function setup(store: KeywardStore = memoryStore()) {
  const heard: { topic: string; message: unknown }[] = [];
  const told: KeywardEvent[] = [];
  const listener: KeywardFeature<"listener"> = {
    name: "listener",
    install: ({ bus }) => {
      bus.subscribe("token.*", (message, topic) => heard.push({ topic, message }));
      return {};
    },
  };
  const clock = manualClock(start);
  const errors: unknown[] = [];
  const keyward = createKeyward({
    store,
    scopes: { "profile:read": "Read", "profile:write": "Write" },
    tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
    clock,
    jwt: { secret },
    logger: false,
    onError: (error) => errors.push(error),
    features: [
      agentTokens({ signingKeys: { current: "k1", keys: { k1 } } }),
      events({
        onEvent: (event) => {
          told.push(event);
        },
      }),
      listener,
    ],
  });
  const exchange = (key: string) =>
    keyward.handle(
      new Request("http://localhost/api/v1/api-keys/tokens", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ audience, scopes: ["profile:read"], ttl: 120 }),
      }),
    );
  return { keyward, heard, told, errors, exchange, clock };
}

const session = (sub: string) =>
  new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(sub)
    .setIssuedAt(Math.floor(start / 1000))
    .setExpirationTime(Math.floor(start / 1000) + 300)
    .sign(new TextEncoder().encode(secret));

describe("token.issued in the audit log", () => {
  it("is written to the key's log, shown by GET /{key_id}/events, told to onEvent and published once", async () => {
    const { keyward, heard, told, exchange, clock } = setup();
    // The key made a minute before the exchange: the log lists newest first.
    clock.set(start - 60_000);
    const { key, id } = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "agent",
      scopes: ["profile:read", "profile:write"],
      tier: "free",
    });
    clock.set(start);
    const response = await exchange(key);
    expect(response.status).toBe(200);
    const { token } = (await response.json()) as { token: string };
    const jti = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))).jti;

    const expected = {
      id: expect.stringMatching(/^evt_[0-9A-Za-z]{24}$/),
      type: "token.issued",
      occurredAt: "2026-12-01T00:00:00.000Z",
      owner: { type: "user", id: "alice" },
      keyId: id,
      actor: { type: "system" },
      data: {
        jti,
        audience,
        scopes: ["profile:read"],
        expiresAt: "2026-12-01T00:02:00.000Z",
      },
    };
    const { data } = await keyward.events.list({ owner: "alice", keyId: id });
    expect(data.map((event) => event.type)).toEqual(["token.issued", "key.created"]);
    expect(data[0]).toEqual(expected);

    const listed = await keyward.handle(
      new Request(`http://localhost/api/v1/api-keys/${id}/events`, {
        headers: { authorization: `Bearer ${await session("alice")}` },
      }),
    );
    expect(listed.status).toBe(200);
    const page = (await listed.json()) as { data: KeywardEvent[] };
    expect(page.data[0]).toEqual({ ...expected, id: data[0]!.id });
    // Another user does not see it.
    const other = await keyward.handle(
      new Request(`http://localhost/api/v1/api-keys/${id}/events`, {
        headers: { authorization: `Bearer ${await session("mallory")}` },
      }),
    );
    expect(other.status).toBe(403);

    expect(told.filter((event) => event.type === "token.issued")).toEqual([
      { ...expected, id: data[0]!.id },
    ]);
    // Once on the bus, by events() as it publishes every committed event (occurredAt in ms).
    expect(heard).toEqual([
      {
        topic: "token.issued",
        message: { ...expected, id: data[0]!.id, occurredAt: start },
      },
    ]);
    const signature = token.split(".")[2]!;
    for (const seen of [data, page, told, heard]) {
      expect(JSON.stringify(seen)).not.toContain(signature);
    }
  });

  it("hands over no token when the event cannot be written", async () => {
    const store = memoryStore();
    const log = store.events!;
    let failing = false;
    const { keyward, heard, errors, exchange } = setup({
      ...store,
      events: {
        list: (query) => log.list(query),
        prune: (before) => log.prune(before),
        append: (entries, now) =>
          failing ? Promise.reject(new Error("the log is down")) : log.append(entries, now),
      },
    });
    const { key, id } = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "agent",
      scopes: ["profile:read"],
      tier: "free",
    });
    failing = true;
    const response = await exchange(key);
    expect(response.status).toBe(500);
    expect(await response.text()).not.toMatch(/eyJ/);
    expect(heard).toEqual([]);
    expect(errors.length).toBeGreaterThan(0);
    failing = false;
    expect((await exchange(key)).status).toBe(200);
    const { data } = await keyward.events.list({ owner: "alice", keyId: id });
    expect(data.filter((event) => event.type === "token.issued")).toHaveLength(1);
  });

  it("is a type the audit log's filter takes (?types=token.issued), and an unknown type is still 422", async () => {
    const { keyward, exchange } = setup();
    const { key, id } = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "agent",
      scopes: ["profile:read"],
      tier: "free",
    });
    expect((await exchange(key)).status).toBe(200);
    const get = async (query: string) =>
      keyward.handle(
        new Request(`http://localhost/api/v1/api-keys/${id}/events${query}`, {
          headers: { authorization: `Bearer ${await session("alice")}` },
        }),
      );
    const filtered = await get("?types=token.issued");
    expect(filtered.status).toBe(200);
    const page = (await filtered.json()) as { data: KeywardEvent[] };
    expect(page.data.map((event) => event.type)).toEqual(["token.issued"]);
    const both = (await (await get("?types=token.issued,key.created")).json()) as {
      data: KeywardEvent[];
    };
    expect(both.data.map((event) => event.type).sort()).toEqual(["key.created", "token.issued"]);
    const listed = await keyward.events.list({ owner: "alice", types: ["token.issued"] });
    expect(listed.data).toEqual(page.data);

    const unknown = await get("?types=token.revoked");
    expect(unknown.status).toBe(422);
    const body = (await unknown.json()) as { detail: { loc: unknown[]; msg: string }[] };
    expect(body.detail).toEqual([
      expect.objectContaining({
        loc: ["query", "types", 0],
        msg: expect.stringContaining("token.issued"),
      }),
    ]);
  });

  it("is unknown to the filter of an instance that does not list agentTokens()", async () => {
    const keyward = createKeyward({
      store: memoryStore(),
      scopes: { "profile:read": "Read" },
      tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
      jwt: { secret },
      logger: false,
      features: [events()],
    });
    await expect(
      keyward.events.list({ owner: "alice", types: ["token.issued"] }),
    ).rejects.toMatchObject({ code: "validation_failed" });
    await keyward.close();
  });
});
