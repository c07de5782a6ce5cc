/**
 * Recoverable keys (`recoverable()`) on the real PostgreSQL server: a dump of every table holds no
 * secret, sealed or issued, in any form; reveals work across a key-ring rotation; the same
 * database opened with another ring (a stolen backup, a lost key) reveals nothing.
 */
import { createKeyward } from "@keyward/core";
import { recoverable } from "@keyward/core/recoverable";
import { memoryRateLimitStore } from "@keyward/core/toolkit";
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrate, postgresStore } from "../src/index.js";
import {
  describeOnServer,
  dropSchema,
  dumpSchema,
  serverPool,
  uniqueSchema,
} from "./support/databases.js";

const kek = (fill: number) => btoa(String.fromCharCode(...new Uint8Array(32).fill(fill)));

describeOnServer("recoverable keys on PostgreSQL", () => {
  const pool = serverPool();
  const schema = uniqueSchema("recoverable");
  const opened: { close(): Promise<void> }[] = [];
  beforeAll(async () => {
    await migrate(pool, { schema });
  });
  afterAll(async () => {
    for (const keyward of opened) await keyward.close();
    await dropSchema(pool, schema);
    await pool.end();
  });

  const instance = (keyRing: { current: string; keys: Record<string, string> }) => {
    const store = postgresStore({ client: pool, schema, cache: false, invalidation: false });
    const keyward = createKeyward({
      store: { keys: store.keys, usage: store.usage, rateLimits: memoryRateLimitStore() },
      scopes: { "profile:read": "Read profiles" },
      tiers: { free: { rateLimit: { limit: 1_000, window: "1m" } } },
      jwt: false,
      // The host's own session, signed in just now (`iat`, as a JWT would carry it).
      session: () => ({ userId: "alice", claims: { iat: Math.floor(Date.now() / 1000) } }),
      logger: false,
      features: [recoverable({ keyRing, maxSessionAge: "5m" })],
    });
    opened.push(keyward);
    return keyward;
  };
  const reveal = async (keyward: ReturnType<typeof instance>, id: string) => {
    const response = await keyward.handle(
      new Request(`http://localhost/api/v1/api-keys/${id}/reveal`, {
        method: "POST",
        // A same-origin request of the signed-in user (no bearer token: the host's session).
        headers: { origin: "http://localhost", "sec-fetch-site": "same-origin" },
      }),
    );
    return { status: response.status, body: (await response.json()) as { key?: string } };
  };
  const create = (keyward: ReturnType<typeof instance>, name: string) =>
    keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name,
      scopes: ["profile:read"],
      tier: "free",
    });

  it("keeps no secret in any table, and reveals keys sealed before and after a key-ring rotation", async () => {
    const first = instance({ current: "k1", keys: { k1: kek(1) } });
    const before = await create(first, "before");
    const rotated = await first.keys.rotate("alice", (await create(first, "rotated")).id);
    const second = instance({ current: "k2", keys: { k1: kek(1), k2: kek(2) } });
    const after = await create(second, "after");
    const secrets = [before.key, rotated.key, after.key];

    const dump = JSON.stringify(await dumpSchema(pool, schema));
    for (const secret of secrets) {
      expect(dump).not.toContain(secret);
      // Nor its random part, nor its base64.
      expect(dump).not.toContain(secret.slice(8, 38));
      expect(dump).not.toContain(btoa(secret).slice(0, 40));
    }
    const { rows } = await pool.query<{ sealed_secret: string }>(
      `SELECT fields->>'sealedSecret' AS sealed_secret FROM "${schema}"."keyward_keys" ORDER BY name`,
    );
    expect(rows.map((row) => row.sealed_secret.split(".").slice(0, 2).join("."))).toEqual([
      "v1.k2",
      "v1.k1",
      "v1.k1",
    ]);

    for (const [id, secret] of [
      [before.id, before.key],
      [rotated.id, rotated.key],
      [after.id, after.key],
    ] as const) {
      expect(await reveal(second, id)).toEqual({
        status: 200,
        body: { id, hint: expect.any(String), key: secret },
      });
    }
  });

  it("reveals nothing from the same database under another key ring", async () => {
    const owner = instance({ current: "k1", keys: { k1: kek(1) } });
    const created = await create(owner, "stolen");
    const thief = instance({ current: "k1", keys: { k1: kek(7) } });
    const refused = await reveal(thief, created.id);
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).not.toContain(created.key);
    expect((await reveal(owner, created.id)).body.key).toBe(created.key);
  });
});
