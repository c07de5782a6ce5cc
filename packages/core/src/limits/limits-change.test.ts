import { describe, expect, it } from "vitest";
import { manualClock } from "../clock.js";
import { KeywardError } from "../errors/keyward-error.js";
import { createKeyward } from "../keyward/create-keyward.js";
import { memoryKeyStore } from "../memory/memory-key-store.js";
import { memoryStore } from "../memory/memory-store.js";

const scopes = { "profile:read": "Read" };
const tiers = { free: { rateLimit: { limit: 100, window: "1m" } } };

function setup(store = memoryStore()) {
  const keyward = createKeyward({
    store,
    scopes,
    tiers,
    clock: manualClock(Date.parse("2026-07-01T12:00:00.000Z")),
    jwt: false,
    logger: false,
  });
  const newKey = () =>
    keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
  const call = (key: string) => keyward.verify(`Bearer ${key}`, { route: "GET /p" });
  return { keyward, store, newKey, call };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("keys.update with limits", () => {
  it("sets per-key limits with the other changes, in the record's one write", async () => {
    const { keyward, store, newKey, call } = setup();
    const { id, key } = await newKey();
    const record = await keyward.keys.update("alice", id, {
      name: "metered",
      limits: { credits: { remaining: 2 }, quota: { limit: 5, period: "day" } },
    });
    expect(record.name).toBe("metered");
    const stored = await store.keys.findById(id);
    expect(stored?.limits).toMatchObject({
      credits: { remaining: 2 },
      quota: { limit: 5, period: "day" },
    });
    expect(stored?.name).toBe("metered");
    // Verification follows at once: two credits, then a refusal naming them.
    expect((await call(key)).ok).toBe(true);
    expect((await call(key)).ok).toBe(true);
    const refused = await call(key);
    expect(refused.ok ? undefined : refused.error.detail).toBe("API key has no credits left");
    // As with setLimits: a field given replaces, one left out stays, null returns it to the tier.
    await keyward.keys.update("alice", id, { limits: { credits: null } });
    expect((await store.keys.findById(id))?.limits).toEqual({
      quota: { limit: 5, period: "day" },
    });
    expect((await call(key)).ok).toBe(true);
    await keyward.keys.update("alice", id, { limits: null });
    expect((await store.keys.findById(id))?.limits ?? null).toBeNull();
    // keys.setLimits stays: the same change, by key id alone.
    expect(await keyward.keys.setLimits(id, { quota: { limit: 1, period: "month" } })).toEqual({
      quota: { limit: 1, period: "month" },
    });
  });

  it("reports bad limits with the other bad values (422) and changes nothing", async () => {
    const { keyward, store, newKey } = setup();
    const { id } = await newKey();
    const before = await store.keys.findById(id);
    const error = await rejection(
      keyward.keys.update("alice", id, {
        name: "",
        limits: { quota: { limit: 0, period: "day" } },
      }),
    );
    expect(error).toBeInstanceOf(KeywardError);
    const { status, detail } = error as KeywardError;
    expect(status).toBe(422);
    expect(Array.isArray(detail) ? detail.map((issue) => issue.loc) : detail).toEqual([
      ["body", "name"],
      ["body", "limits"],
    ]);
    for (const limits of [
      { credits: { remaining: -1 } },
      { rateLimit: { limit: 1, window: "soon" } },
      "all",
    ]) {
      const bad = await rejection(keyward.keys.update("alice", id, { limits } as never));
      expect((bad as KeywardError).status).toBe(422);
    }
    expect(await store.keys.findById(id)).toEqual(before);
  });

  it("answers 410 for a revoked key, and refuses a store that cannot keep limits", async () => {
    const { keyward, newKey } = setup();
    const { id } = await newKey();
    await keyward.keys.revoke("alice", id);
    const revoked = await rejection(
      keyward.keys.update("alice", id, { limits: { credits: { remaining: 5 } } }),
    );
    expect((revoked as KeywardError).status).toBe(410);

    const { setLimits: _, ...keysWithout } = memoryKeyStore();
    const plain = setup({ ...memoryStore(), keys: keysWithout });
    const other = await plain.newKey();
    const misuse = await rejection(
      plain.keyward.keys.update("alice", other.id, { limits: { credits: { remaining: 5 } } }),
    );
    expect(misuse).toBeInstanceOf(TypeError);
    expect((misuse as Error).message).toContain("cannot store per-key limits");
  });
});
