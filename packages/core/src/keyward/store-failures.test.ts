/**
 * A store's background failures (here: a verification cache whose invalidation cannot be
 * published) reach the Keyward logger once it uses the store, repeat-filtered like every other
 * failure, and the `onError` hook every time; never `console.warn`. Before a Keyward attaches, and
 * when the store was given its own `onError`, they go where they went before.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { cachedKeyStore } from "../cache/cached-key-store.js";
import {
  type InvalidationChannel,
  memoryInvalidationChannel,
} from "../cache/invalidation-channel.js";
import type { KeywardLogger } from "../logging/logger.js";
import { memoryKeyStore } from "../memory/memory-key-store.js";
import { memoryStore } from "../memory/memory-store.js";
import { combineStores } from "../storage/combine-stores.js";
import { createKeyward } from "./create-keyward.js";

afterEach(() => vi.restoreAllMocks());

const publishFailure = new Error("invalidation transport is down");

/** An in-process channel that delivers subscriptions but cannot publish, as in an outage. */
function channelThatCannotPublish(): InvalidationChannel {
  const channel = memoryInvalidationChannel();
  return { ...channel, publish: () => Promise.reject(publishFailure) };
}

function recordingLogger() {
  const errors: { message: string; cause: unknown }[] = [];
  const logger: KeywardLogger = {
    error: (message, cause) => errors.push({ message, cause }),
    warn() {},
  };
  return { errors, logger };
}

function keywardOver(keys: ReturnType<typeof cachedKeyStore>, logger: KeywardLogger) {
  const hooked: unknown[] = [];
  const keyward = createKeyward({
    // The cache is a part picked by hand: createKeyward reaches it through combineStores.
    store: combineStores({ keys }, memoryStore()),
    scopes: { "profile:read": "Read profiles" },
    tiers: { free: { rateLimit: { limit: 5, window: "1m" } } },
    logger,
    onError: (error) => hooked.push(error),
  });
  return { keyward, hooked };
}

const createAndRevoke = async (keyward: ReturnType<typeof createKeyward>) => {
  const { id } = await keyward.keys.create({
    ownerId: "alice",
    accountTier: "free",
    name: "k",
    scopes: ["profile:read"],
    tier: "free",
  });
  await keyward.keys.revoke("alice", id);
};

describe("a store's background failures", () => {
  it("reach the Keyward logger once and the onError hook each time, not console.warn", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { errors, logger } = recordingLogger();
    const keys = cachedKeyStore(memoryKeyStore(), { channel: channelThatCannotPublish() });
    const { keyward, hooked } = keywardOver(keys, logger);

    await createAndRevoke(keyward);
    await createAndRevoke(keyward);

    expect(errors).toEqual([{ message: "key cache invalidation failed", cause: publishFailure }]);
    expect(hooked).toEqual([publishFailure, publishFailure]);
    expect(warn).not.toHaveBeenCalled();
    await keyward.close();
  });

  it("go to console.warn while no Keyward uses the store", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const keys = cachedKeyStore(memoryKeyStore(), { channel: channelThatCannotPublish() });
    await keys.ready;
    await keys.create({
      id: "key_1",
      ownerType: "user",
      ownerId: "alice",
      createdBy: "alice",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
      secretHash: "c".repeat(64),
      hint: "sk_live_…abcd",
      createdAt: 0,
      expiresAt: null,
      revokedAt: null,
      rotatedAt: null,
      previousSecretHash: null,
      previousSecretExpiresAt: null,
      version: 1,
      ownerTier: null,
      disabledAt: null,
      metadata: null,
    });
    await keys.revoke("key_1", 1);
    expect(warn).toHaveBeenCalledWith("keyward: key cache invalidation failed", publishFailure);
    await keys.close();
  });

  it("go to the store's own onError when it was given one", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { errors, logger } = recordingLogger();
    const own: unknown[] = [];
    const keys = cachedKeyStore(memoryKeyStore(), {
      channel: channelThatCannotPublish(),
      onError: (error) => own.push(error),
    });
    const { keyward, hooked } = keywardOver(keys, logger);

    await createAndRevoke(keyward);

    expect(own).toEqual([publishFailure]);
    expect(errors).toEqual([]);
    expect(hooked).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
    await keyward.close();
  });
});
