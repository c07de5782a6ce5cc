/**
 * A store that finds, at its limit step, that the key changed since the record the request was
 * verified with was read (`KeyChangedError`): `verify` checks and charges the request once more with
 * the current record, so it is answered as a verification of that record answers it. The store
 * here serves a record read before the change, as a cache that other instances' changes do not
 * reach does (`@keyward/cloudflare`'s isolates), and refuses the old version at its limit step.
 */
import { describe, expect, it } from "vitest";
import { manualClock } from "../clock.js";
import { createKeyward } from "../keyward/create-keyward.js";
import { memoryStore } from "../memory/memory-store.js";
import type { RateLimitStore } from "../storage/index.js";
import { KeyChangedError } from "../storage/key-changed-error.js";
import type { StoredKey } from "../storage/key-store.js";

const start = Date.parse("2026-07-01T10:00:00.000Z");

async function setup() {
  const inner = memoryStore();
  /** The record this "instance" read before the change, served from its "cache". */
  let cached: StoredKey | null = null;
  /** How many limit calls to refuse as made with an old record. */
  let refusals = 0;
  let keyId = "";
  const rateLimits: RateLimitStore = {
    async consume(bucket, policy, now) {
      if (refusals > 0) {
        refusals -= 1;
        const current = await inner.keys.findById(keyId);
        cached = null;
        throw new KeyChangedError(current);
      }
      return inner.rateLimits.consume(bucket, policy, now);
    },
  };
  const errors: unknown[] = [];
  const keyward = createKeyward({
    store: {
      keys: { ...inner.keys, peek: (hash) => (cached?.secretHash === hash ? cached : undefined) },
      usage: inner.usage,
      rateLimits,
    },
    scopes: { "profile:read": "Read", "profile:write": "Write" },
    tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
    clock: manualClock(start),
    jwt: false,
    logger: false,
    onError: (error) => errors.push(error),
  });
  const created = await keyward.keys.create({
    ownerId: "alice",
    accountTier: "free",
    name: "k",
    scopes: ["profile:read", "profile:write"],
    tier: "free",
  });
  /** The record as it is now is what this instance holds; the next `times` limit calls refuse it. */
  const holdStaleRecord = async (times = 1) => {
    keyId = created.id;
    cached = await inner.keys.findById(created.id);
    refusals = times;
  };
  return { keyward, created, errors, holdStaleRecord };
}

describe("verify, when the store finds the key changed since its record was read", () => {
  it("checks the request again with the current record: a narrowed scope is refused", async () => {
    const { keyward, created, errors, holdStaleRecord } = await setup();
    await holdStaleRecord();
    await keyward.keys.update("alice", created.id, { scopes: ["profile:read"] });
    const refused = await keyward.verify(`Bearer ${created.key}`, { scopes: ["profile:write"] });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error.code).toBe("insufficient_scope");
    expect(errors).toEqual([]);
  });

  it("admits with the current record: the principal has the new name", async () => {
    const { keyward, created, errors, holdStaleRecord } = await setup();
    await holdStaleRecord();
    await keyward.keys.update("alice", created.id, { name: "renamed" });
    const admitted = await keyward.verify(`Bearer ${created.key}`, { scopes: ["profile:write"] });
    expect(admitted.ok && admitted.principal.kind === "key" && admitted.principal.name).toBe(
      "renamed",
    );
    expect(errors).toEqual([]);
  });

  it("refuses a secret the current record no longer has, and a revoked key", async () => {
    const { keyward, created, holdStaleRecord } = await setup();
    await holdStaleRecord();
    await keyward.keys.rotate("alice", created.id);
    const rotated = await keyward.verify(`Bearer ${created.key}`);
    expect(!rotated.ok && rotated.error.detail).toBe("Invalid API key");

    const { keyward: other, created: key, holdStaleRecord: hold } = await setup();
    await hold();
    await other.keys.revoke("alice", key.id);
    const revoked = await other.verify(`Bearer ${key.key}`);
    expect(!revoked.ok && revoked.error.detail).toBe("API key has been revoked");
  });

  it("only once: a second change met on the retry fails the request as a store failure", async () => {
    const { keyward, created, errors, holdStaleRecord } = await setup();
    await holdStaleRecord(2);
    const failed = await keyward.verify(`Bearer ${created.key}`);
    expect(!failed.ok && failed.error.status).toBe(500);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(KeyChangedError);
  });
});
