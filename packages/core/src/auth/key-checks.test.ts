/**
 * `verify`'s named point "key checks", as a feature uses it through `extends.keyChecks`: its checks
 * run after the kernel's, in the order the features are listed, before any limit is charged.
 */
import { describe, expect, it } from "vitest";
import type { KeywardFeature } from "../feature-interface/feature.js";
import { createKeyward } from "../keyward/create-keyward.js";
import { memoryStore } from "../memory/memory-store.js";
import type { KeyCheck } from "./key-checks.js";

const refusing = (name: string, seen: string[]): KeywardFeature<string> => {
  const check: KeyCheck = {
    name,
    check(key, _options, kit) {
      seen.push(name);
      return key.name === "blocked"
        ? kit.refuse("api_key_not_allowed", `refused by ${name}`)
        : undefined;
    },
  };
  return { name, extends: { verify: { check: [check] } }, install: () => ({}) };
};

async function setup(...features: KeywardFeature<string>[]) {
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "profile:read": "Read" },
    tiers: { free: { rateLimit: { limit: 2, window: "1m" } } },
    jwt: false,
    logger: false,
    features,
  });
  const make = (name: string) =>
    keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name,
      scopes: ["profile:read"],
      tier: "free",
    });
  const verify = (secret: string) => keyward.verify(`Bearer ${secret}`, { route: "GET /x" });
  return { keyward, make, verify };
}

describe("verify's key checks, added by features", () => {
  it("run in the order the features are listed; the first refusal wins, before any limit", async () => {
    const seen: string[] = [];
    const { make, verify } = await setup(refusing("first", seen), refusing("second", seen));
    const blocked = await make("blocked");
    for (let i = 0; i < 3; i++) {
      const result = await verify(blocked.key);
      expect(result.ok ? undefined : [result.error.status, result.error.detail]).toEqual([
        403,
        "refused by first",
      ]);
    }
    expect(seen).toEqual(["first", "first", "first"]);
    // Its refusals spent none of its rate limit (2 a minute): a key let on is admitted twice.
    seen.length = 0;
    const fine = await make("fine");
    expect((await verify(fine.key)).ok).toBe(true);
    expect((await verify(fine.key)).ok).toBe(true);
    expect(seen).toEqual(["first", "second", "first", "second"]);
  });

  it("never run for a key that is not live, nor for a token that is no key", async () => {
    const seen: string[] = [];
    const { keyward, make, verify } = await setup(refusing("watcher", seen));
    const key = await make("fine");
    await keyward.keys.revoke("alice", key.id);
    const revoked = await verify(key.key);
    expect(revoked.ok ? undefined : revoked.error.detail).toBe("API key has been revoked");
    expect((await verify("sk_live_not-a-key")).ok).toBe(false);
    expect(seen).toEqual([]);
  });
});
