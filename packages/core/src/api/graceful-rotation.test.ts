/**
 * Graceful rotation on a fake clock: the deadline to the millisecond, the programmatic API, the
 * cache in front of a store, and a v0.1 configuration that ignores the rotate body as before.
 */
import { describe, expect, it } from "vitest";
import { cachedKeyStore } from "../cache/cached-key-store.js";
import { memoryInvalidationChannel } from "../cache/invalidation-channel.js";
import { manualClock } from "../clock.js";
import { KeywardError } from "../errors/keyward-error.js";
import { lifecycle } from "../features/lifecycle/index.js";
import type { LifecycleConfig } from "../features/lifecycle/lifecycle-config.js";
import { createKeyward } from "../keyward/create-keyward.js";
import { memoryKeyStore } from "../memory/memory-key-store.js";
import { memoryStore } from "../memory/memory-store.js";
import { combineStores } from "../storage/combine-stores.js";

const start = Date.parse("2026-05-01T00:00:00.000Z");
const jwtSecret = "graceful-rotation-test-secret-of-32-bytes!";

function setUp(gracefulRotation: LifecycleConfig["gracefulRotation"] = true) {
  const clock = manualClock(start);
  const store = memoryStore();
  const keyward = createKeyward({
    store,
    scopes: { "profile:read": "Read profiles" },
    tiers: { free: { rateLimit: { limit: 1000, window: "1m" } } },
    jwt: { secret: jwtSecret },
    clock,
    logger: false,
    features: [lifecycle({ gracefulRotation })],
  });
  const create = () =>
    keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "deploy bot",
      scopes: ["profile:read"],
      tier: "free",
    });
  const status = async (secret: string) => {
    const result = await keyward.verify(`Bearer ${secret}`, { route: "/things" });
    return result.ok ? "ok" : result.error.detail;
  };
  return { clock, store, keyward, create, status };
}

describe("graceful rotation on a fake clock", () => {
  it("accepts the old secret until the millisecond before the deadline, and never after", async () => {
    const { clock, keyward, create, status } = setUp();
    const key = await create();
    const rotated = await keyward.keys.rotate("alice", key.id, { gracePeriodSeconds: 60 });
    expect(rotated.previousSecretExpiresAt).toBe("2026-05-01T00:01:00.000Z");
    clock.advance(59_999);
    expect(await status(key.key)).toBe("ok");
    expect(await status(rotated.key)).toBe("ok");
    clock.advance(1);
    expect(await status(key.key)).toBe("Invalid API key");
    expect(await status(rotated.key)).toBe("ok");
    // The record stops showing a grace that is over, without any write.
    const [listed] = await keyward.keys.list("alice");
    expect(listed).not.toHaveProperty("previousSecretExpiresAt");
    expect(listed?.hint).toBe(rotated.hint);
  });

  it("counts requests made with either secret to the one key", async () => {
    const { keyward, create, status } = setUp();
    const key = await create();
    const rotated = await keyward.keys.rotate("alice", key.id, { gracePeriodSeconds: 600 });
    for (const secret of [key.key, rotated.key, key.key, key.key]) {
      expect(await status(secret)).toBe("ok");
    }
    expect((await keyward.keys.usage("alice", key.id)).totalRequests).toBe(4);
  });

  it("keeps a key's disabled, expired and revoked states over both secrets", async () => {
    const { clock, keyward, create, status } = setUp();
    const key = await create();
    const rotated = await keyward.keys.rotate("alice", key.id, { gracePeriodSeconds: 600 });
    await keyward.keys.update("alice", key.id, { enabled: false });
    expect(await status(key.key)).toBe("API key is disabled");
    expect(await status(rotated.key)).toBe("API key is disabled");
    await keyward.keys.update("alice", key.id, { enabled: true });
    expect(await status(key.key)).toBe("ok");
    await keyward.keys.revoke("alice", key.id);
    expect(await status(key.key)).toBe("API key has been revoked");
    expect(await status(rotated.key)).toBe("API key has been revoked");
    clock.advance(600_000);
    // After the grace the old secret is simply unknown, like any replaced one.
    expect(await status(key.key)).toBe("Invalid API key");
  });

  it("refuses a grace over the maximum, a fraction, or a negative one (422, nothing rotated)", async () => {
    const { keyward, create, status } = setUp({ maxGracePeriodSeconds: 3600 });
    const key = await create();
    for (const gracePeriodSeconds of [3601, 1.5, -1, Number.NaN]) {
      const error = await keyward.keys.rotate("alice", key.id, { gracePeriodSeconds }).then(
        () => null,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(KeywardError);
      expect((error as KeywardError).status).toBe(422);
    }
    const over = await keyward.keys
      .rotate("alice", key.id, { gracePeriodSeconds: 3601 })
      .catch((error: KeywardError) => error);
    expect(JSON.stringify((over as KeywardError).detail)).toContain("less than or equal to 3600");
    expect(await status(key.key)).toBe("ok");
    const [listed] = await keyward.keys.list("alice");
    expect(listed?.hint).toBe(key.hint);
    // The maximum itself is allowed.
    const rotated = await keyward.keys.rotate("alice", key.id, { gracePeriodSeconds: 3600 });
    expect(rotated.previousSecretExpiresAt).toBe("2026-05-01T01:00:00.000Z");
  });

  it("is off by default: keys.rotate refuses a grace, and the HTTP body is ignored as in v0.1", async () => {
    const { keyward, create, status } = setUp(false);
    const key = await create();
    await expect(keyward.keys.rotate("alice", key.id, { gracePeriodSeconds: 60 })).rejects.toThrow(
      /needs lifecycle\(\{ gracefulRotation \}\)/,
    );
    // 0 asks for nothing a v0.1 configuration lacks.
    const plain = await keyward.keys.rotate("alice", key.id, { gracePeriodSeconds: 0 });
    expect(await status(key.key)).toBe("Invalid API key");

    const token = await signToken({ sub: "alice", tier: "free" });
    for (const body of ['{"gracePeriodSeconds": 60}', "{not json", '"text"']) {
      const before = (await keyward.keys.list("alice"))[0]!;
      const response = await keyward.handle(
        new Request(`http://keyward.test/api/v1/api-keys/${key.id}/rotate`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body,
        }),
      );
      expect(response.status).toBe(200);
      const rotated = (await response.json()) as { key: string; hint: string };
      expect(rotated).not.toHaveProperty("previousSecretExpiresAt");
      expect(rotated.hint).not.toBe(before.hint);
      expect(await status(rotated.key)).toBe("ok");
    }
    expect(await status(plain.key)).toBe("Invalid API key");
  });

  it("refuses a malformed configuration with a clear message", () => {
    for (const gracefulRotation of [
      { maxGracePeriodSeconds: -1 },
      { maxGracePeriodSeconds: 1.5 },
      "7d",
      null,
    ]) {
      expect(() => setUp(gracefulRotation as never)).toThrow(/`gracefulRotation` must be/);
    }
  });

  it("works through a verification cache on two instances: a rotation reaches both at once", async () => {
    const clock = manualClock(start);
    const backing = memoryKeyStore();
    const channel = memoryInvalidationChannel();
    const instance = () => {
      const keys = cachedKeyStore(backing, { channel, clock });
      return createKeyward({
        store: combineStores({ keys }, memoryStore()),
        scopes: { "profile:read": "Read profiles" },
        tiers: { free: { rateLimit: { limit: 1000, window: "1m" } } },
        jwt: { secret: jwtSecret },
        clock,
        logger: false,
        features: [lifecycle({ gracefulRotation: true })],
      });
    };
    const [a, b] = [instance(), instance()];
    const ok = async (keyward: typeof a, secret: string) =>
      (await keyward.verify(`Bearer ${secret}`, { route: "/things" })).ok;
    const key = await a.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    // Both instances have the key cached under its first secret.
    expect([await ok(a, key.key), await ok(b, key.key)]).toEqual([true, true]);
    const graceful = await a.keys.rotate("alice", key.id, { gracePeriodSeconds: 60 });
    for (const keyward of [a, b]) {
      expect(await ok(keyward, key.key)).toBe(true);
      expect(await ok(keyward, graceful.key)).toBe(true);
    }
    // Rotating again on the other instance ends the first secret on both at once.
    const cut = await b.keys.rotate("alice", key.id);
    for (const keyward of [a, b]) {
      expect(await ok(keyward, key.key)).toBe(false);
      expect(await ok(keyward, graceful.key)).toBe(false);
      expect(await ok(keyward, cut.key)).toBe(true);
    }
    await Promise.all([a.close(), b.close()]);
  });
});

async function signToken(claims: Record<string, unknown>): Promise<string> {
  const { SignJWT } = await import("jose");
  return (
    new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256" })
      // The fake clock's time: verification checks `iat` and `exp` against it.
      .setIssuedAt(start / 1000)
      .setExpirationTime(start / 1000 + 600)
      .sign(new TextEncoder().encode(jwtSecret))
  );
}
