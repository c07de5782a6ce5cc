/**
 * An exchange is audited on PostgreSQL: with `events()` listed, the `token.issued` an exchange on
 * one instance writes is in the shared audit log, listed by the other (`keyward.events.list` and
 * `GET {basePath}/{key_id}/events`), and published once on the bus of the instance that issued it.
 */
import {
  combineStores,
  createKeyward,
  type KeywardEvent,
  type KeywardFeature,
  memoryStore,
} from "@keyward/core";
import { agentTokens } from "@keyward/core/agent-tokens";
import { events } from "@keyward/core/events";
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrate, postgresStore } from "../src/index.js";
import { describeOnServer, dropSchema, serverPool, uniqueSchema } from "./support/databases.js";

const audience = "https://api.example.com/mcp";

describeOnServer("agent tokens audited on PostgreSQL", () => {
  const pool = serverPool();
  const schema = uniqueSchema("agent_tokens_audit");
  const opened: { close(): Promise<void> }[] = [];
  beforeAll(async () => {
    await migrate(pool, { schema });
  });
  afterAll(async () => {
    for (const thing of opened) await thing.close();
    await dropSchema(pool, schema);
    await pool.end();
  });

  const instance = async (signingKeys: { current: string; keys: Record<string, JsonWebKey> }) => {
    const store = postgresStore({ client: pool, schema });
    await store.ready;
    const heard: { topic: string; message: unknown }[] = [];
    const listener: KeywardFeature<"listener"> = {
      name: "listener",
      install: ({ bus }) => {
        bus.subscribe("token.*", (message, topic) => heard.push({ topic, message }));
        return {};
      },
    };
    const keyward = createKeyward({
      store: combineStores(store, memoryStore()),
      scopes: { "profile:read": "Read profiles" },
      tiers: { free: { rateLimit: { limit: 1_000, window: "1m" } } },
      jwt: false,
      // The host's own session: alice, signed in.
      session: () => ({ userId: "alice" }),
      logger: false,
      features: [agentTokens({ signingKeys }), events({ pruneIntervalMs: false }), listener],
    });
    opened.push(keyward);
    return { keyward, heard };
  };

  it("writes token.issued to the shared log, listed by the other instance", async () => {
    const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ]);
    const ring = {
      current: "k1",
      keys: { k1: await crypto.subtle.exportKey("jwk", pair.privateKey) },
    };
    const a = await instance(ring);
    const b = await instance(ring);
    const { key, id } = await a.keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "agent",
      scopes: ["profile:read"],
      tier: "free",
    });
    const exchanged = await a.keyward.handle(
      new Request("http://localhost/api/v1/api-keys/tokens", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ audience, ttl: 90, resources: { profile: ["alice"] } }),
      }),
    );
    expect(exchanged.status).toBe(200);
    const { token, expiresAt } = (await exchanged.json()) as { token: string; expiresAt: string };
    const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString());

    const { data } = await b.keyward.events.list({ owner: "alice", keyId: id });
    const issued = data.filter((event) => event.type === "token.issued");
    expect(issued).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        type: "token.issued",
        occurredAt: new Date(claims.iat * 1000).toISOString(),
        owner: { type: "user", id: "alice" },
        keyId: id,
        actor: { type: "system" },
        data: {
          jti: claims.jti,
          audience,
          scopes: ["profile:read"],
          resources: { profile: ["alice"] },
          expiresAt,
        },
      },
    ]);

    const unfiltered = await b.keyward.handle(
      new Request(`http://localhost/api/v1/api-keys/${id}/events`),
    );
    expect(unfiltered.status).toBe(200);
    const page = (await unfiltered.json()) as { data: KeywardEvent[] };
    expect(page.data.filter((event) => event.type === "token.issued")).toEqual(issued);
    expect(JSON.stringify(page)).not.toContain(token.split(".")[2]);

    // Published once, by the instance that issued it.
    expect(a.heard.map(({ topic }) => topic)).toEqual(["token.issued"]);
    expect(b.heard).toEqual([]);
  });
});
