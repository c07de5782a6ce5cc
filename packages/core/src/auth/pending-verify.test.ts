import { describe, expect, it } from "vitest";
import { manualClock } from "../clock.js";
import type { KeywardConfig } from "../keyward/config.js";
import { createKeyward } from "../keyward/create-keyward.js";
import { memoryStore } from "../memory/memory-store.js";
import type { KeywardStore } from "../storage/index.js";
import { isPromise, verifyPending } from "./pending-verify.js";
import type { VerifyResult } from "./principal.js";

const scopes = { "profile:read": "Read" };
const tiers = { free: { rateLimit: { limit: 2, window: "1m" } } };
const route = "GET /profiles/:slug";

async function setUp(
  store: KeywardStore = memoryStore(),
  tierConfig: KeywardConfig["tiers"] = tiers,
) {
  const clock = manualClock(Date.parse("2026-07-01T10:00:00.000Z"));
  const keyward = createKeyward({ store, scopes, tiers: tierConfig, clock, logger: false });
  const { key, id } = await keyward.keys.create({
    ownerId: "alice",
    accountTier: "free",
    name: "k",
    scopes: ["profile:read"],
    tier: "free",
  });
  return { keyward, header: `Bearer ${key}`, id };
}

/** The memory store with every in-process shortcut taken away: what a remote store looks like. */
function withoutShortcuts(): KeywardStore {
  const store = memoryStore();
  return {
    ...store,
    keys: { ...store.keys, peek: undefined },
    rateLimits: { ...store.rateLimits, consumeNow: undefined, consumeLayersNow: undefined },
  };
}

/** The memory store, with one of its synchronous shortcuts throwing. */
function throwingAtOnce(shortcut: "consumeNow" | "consumeLayersNow"): KeywardStore {
  const store = memoryStore();
  const broken = () => {
    throw new Error("broken");
  };
  return { ...store, rateLimits: { ...store.rateLimits, [shortcut]: broken } };
}

/** A key (limit 3) whose owner shares a limit of 2 and has a daily quota of 5: three layers. */
const layeredTiers = {
  free: {
    rateLimit: { limit: 3, window: "1m" },
    ownerRateLimit: { limit: 2, window: "1m" },
    quota: { limit: 5, period: "day" },
  },
} as const;

/** What a caller sees of a result: status, headers and the caller (its random key id aside). */
function seen(result: VerifyResult) {
  return result.ok
    ? { ok: true, headers: result.headers, principal: { ...result.principal, keyId: "-" } }
    : {
        ok: false,
        status: result.error.status,
        detail: result.error.detail,
        headers: result.headers,
      };
}

describe("verifyPending", () => {
  it("decides at once on the memory store: the result itself, not a promise", async () => {
    const { keyward, header } = await setUp();
    const decided = verifyPending(keyward, header, { scopes: ["profile:read"], route });
    expect(isPromise(decided)).toBe(false);
    expect((decided as VerifyResult).ok).toBe(true);
    expect((decided as VerifyResult).headers["X-RateLimit-Remaining"]).toBe("1");
  });

  it("decides refusals at once too, with the same answers as verify", async () => {
    const { keyward, header } = await setUp();
    for (const [authorization, options] of [
      [undefined, { route }],
      ["Bearer sk_live_forged", { route }],
      [header, { scopes: ["profile:read"], route, environment: "nope" }],
      [header, { scopes: ["profile:read"], route }],
      [header, { scopes: ["profile:read"], route }],
      [header, { scopes: ["profile:read"], route }],
    ] as const) {
      const decided = verifyPending(keyward, authorization, options);
      expect(isPromise(decided)).toBe(false);
    }
    // Past the limit of 2 by now (an environment nobody configured is a 500, before any count).
    const last = verifyPending(keyward, header, {
      scopes: ["profile:read"],
      route,
    }) as VerifyResult;
    expect(!last.ok && last.error.status).toBe(429);
  });

  it("goes through the store's promises when it has no shortcut, with the same decisions", async () => {
    const { keyward, header } = await setUp(withoutShortcuts());
    const first = verifyPending(keyward, header, { scopes: ["profile:read"], route });
    expect(isPromise(first)).toBe(true);
    expect((await first).ok).toBe(true);
    await keyward.verify(header, { scopes: ["profile:read"], route });
    const third = await verifyPending(keyward, header, { scopes: ["profile:read"], route });
    expect(!third.ok && third.error.status).toBe(429);
  });

  it("decides a key with layered limits at once on the memory store, as through promises", async () => {
    const quick = await setUp(memoryStore(), layeredTiers);
    const slow = await setUp(withoutShortcuts(), layeredTiers);
    const options = { scopes: ["profile:read"], route };
    // The owner's shared limit of 2 refuses the third: the same answers, one now, one later.
    for (let request = 0; request < 3; request++) {
      const decided = verifyPending(quick.keyward, quick.header, options);
      const promised = verifyPending(slow.keyward, slow.header, options);
      expect(isPromise(decided)).toBe(false);
      expect(isPromise(promised)).toBe(true);
      expect(seen(decided as VerifyResult)).toEqual(seen(await promised));
    }
    const refused = verifyPending(quick.keyward, quick.header, options) as VerifyResult;
    expect(!refused.ok && refused.error.detail).toBe(
      "Rate limit shared by all of the owner's API keys exceeded",
    );
  });

  it("turns layered limits that throw at once into a 500, never a throw", async () => {
    const { keyward, header } = await setUp(throwingAtOnce("consumeLayersNow"), layeredTiers);
    const decided = verifyPending(keyward, header, { route }) as VerifyResult;
    expect(!decided.ok && decided.error.status).toBe(500);
  });

  it("turns a store that throws at once into a 500, never a throw", async () => {
    const { keyward, header } = await setUp(throwingAtOnce("consumeNow"));
    const decided = verifyPending(keyward, header, { route }) as VerifyResult;
    expect(!decided.ok && decided.error.status).toBe(500);
  });

  it("falls back to verify on a Keyward-shaped object without the hidden method", async () => {
    const { keyward, header } = await setUp();
    const wrapper = { verify: keyward.verify };
    const decided = verifyPending(wrapper, header, { route });
    expect(isPromise(decided)).toBe(true);
    expect((await decided).ok).toBe(true);
  });

  it("leaves keyward.verify promising its result, and the hidden method out of enumeration", async () => {
    const { keyward, header } = await setUp();
    const verified = keyward.verify(header, { route });
    expect(verified).toBeInstanceOf(Promise);
    expect((await verified).ok).toBe(true);
    expect(Object.keys(keyward)).not.toContain("verifyPending");
    expect(Object.getOwnPropertySymbols(keyward).length).toBe(1);
    expect(Object.keys({ ...keyward })).toEqual(Object.keys(keyward));
  });
});
