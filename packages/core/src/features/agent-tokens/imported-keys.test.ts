/**
 * A key brought in by `imports()` (another system's token, stored under that system's hash) can be
 * exchanged for a token like any key: the token is admitted where its audience is declared, also
 * after the import's rehash to Keyward's hash on first use, and refused once the key is revoked.
 * Both features listed, as a host lists them.
 */
import { createHash, randomBytes } from "node:crypto";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import { imports } from "../imports/index.js";
import { agentTokens } from "./index.js";

const audience = "https://api.example.com/mcp";
const pepper = "keyward-pepper-0123456789abcdef-0123";
let k1: JWK;

beforeAll(async () => {
  k1 = await exportJWK((await generateKeyPair("ES256", { extractable: true })).privateKey);
});

/** A token as another system (better-auth) makes one: its prefix and 64 letters. */
const legacyToken = () =>
  `ba_${Array.from(randomBytes(64), (byte) => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[byte % 52]).join("")}`;

/**
 * The memory store, its rehash held until `release()`: as a database's write, which lands after
 * the request that caused it has gone on (the memory store's own would land before).
 */
function setup() {
  const store = memoryStore();
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const rehash = store.keys.rehash!.bind(store.keys);
  const keys = {
    ...store.keys,
    rehash: async (id: string, from: string, to: string) => {
      await released;
      return rehash(id, from, to);
    },
  };
  const keyward = createKeyward({
    store: { ...store, keys },
    scopes: { "profile:read": "Read", "profile:write": "Write" },
    tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
    jwt: false,
    logger: false,
    keys: { pepper },
    features: [
      imports({ prefixes: ["ba_"] }),
      agentTokens({ signingKeys: { current: "k1", keys: { k1 } } }),
    ],
  });
  const exchange = async (secret: string) => {
    const response = await keyward.handle(
      new Request("http://localhost/api/v1/api-keys/tokens", {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ audience }),
      }),
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const onMcp = (token: string) =>
    keyward.verify(`Bearer ${token}`, { audience, route: "POST /mcp", scopes: ["profile:read"] });
  return { keyward, store, exchange, onMcp, release };
}

describe("an imported key exchanged for a token", () => {
  it("issues a token that is admitted, before and after the rehash, and refused once the key is revoked", async () => {
    const { keyward, store, exchange, onMcp, release } = setup();
    const secret = legacyToken();
    const legacyHash = createHash("sha256").update(secret).digest("hex");
    const report = await keyward.imports.importKeys([
      {
        hash: { value: legacyHash, algorithm: "sha256", encoding: "hex" },
        owner: "alice",
        scopes: ["profile:read"],
        tier: "free",
      },
    ]);
    const [id] = report.importedIds;
    expect((await store.keys.findById(id!))?.secretHash).toBe(legacyHash);

    // Its first use is the exchange: found under the other system's hash.
    const first = await exchange(secret);
    expect(first).toMatchObject({ status: 200, body: { audience, scopes: ["profile:read"] } });
    const token = first.body.token as string;
    const admitted = await onMcp(token);
    expect(admitted.ok && admitted.principal).toMatchObject({ kind: "key", keyId: id });

    // The import rehashes the key to Keyward's hash after that first use: its tokens still hold.
    expect((await store.keys.findById(id!))?.secretHash).toBe(legacyHash);
    release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect((await store.keys.findById(id!))?.secretHash).not.toBe(legacyHash);
    expect((await onMcp(token)).ok).toBe(true);
    const second = await exchange(secret);
    expect(second.status).toBe(200);
    expect((await onMcp(second.body.token as string)).ok).toBe(true);

    await keyward.keys.revoke("alice", id!);
    for (const issued of [token, second.body.token as string]) {
      const refused = await onMcp(issued);
      expect(refused.ok || [refused.error.status, refused.error.detail]).toEqual([
        401,
        "API key has been revoked",
      ]);
    }
    expect(await exchange(secret)).toMatchObject({ status: 401 });
  });
});
