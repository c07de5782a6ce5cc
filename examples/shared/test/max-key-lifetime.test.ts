/**
 * The demo contract v0.3's `KEYWARD_MAX_KEY_LIFETIME`: the `maxLifetime` policy for every tier,
 * off when unset, a bad value refused at start naming the variable.
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { describe, expect, it } from "vitest";
import { loadDemoConfig } from "../src/config.js";
import { demoKeywardOptions } from "../src/create-demo.js";

const fields = { ownerId: "alice", accountTier: "free", name: "k", scopes: ["profile:read"] };

const demoWith = (env: Record<string, string>) =>
  createKeyward({
    store: memoryStore(),
    ...demoKeywardOptions(loadDemoConfig(env)),
    logger: false,
  });

describe("KEYWARD_MAX_KEY_LIFETIME", () => {
  it("is off when unset: a key created without an expiry never expires", async () => {
    expect(loadDemoConfig({}).maxKeyLifetime).toBeUndefined();
    const keyward = demoWith({});
    const key = await keyward.keys.create({ ...fields, tier: "free" });
    expect(key.expiresAt).toBeNull();
    await keyward.close();
  });

  it("caps every tier's keys: none asked gets the cap, one past it is refused", async () => {
    const keyward = demoWith({ KEYWARD_MAX_KEY_LIFETIME: "30d" });
    const before = Date.now();
    for (const tier of ["free", "pro", "enterprise"]) {
      const key = await keyward.keys.create({ ...fields, accountTier: "enterprise", tier });
      const lifetime = Date.parse(key.expiresAt!) - before;
      expect(lifetime).toBeGreaterThanOrEqual(30 * 86_400_000 - 1_000);
      expect(lifetime).toBeLessThanOrEqual(30 * 86_400_000 + 60_000);
    }
    const past = new Date(Date.now() + 31 * 86_400_000).toISOString();
    await expect(
      keyward.keys.create({ ...fields, tier: "free", expiresAt: past }),
    ).rejects.toMatchObject({ code: "validation_failed" });
    await keyward.close();
  });

  it.each(["30 days", "30", "0d", "1.5d", "-1d", "1w"])(
    "refuses %j at start, naming the variable",
    (value) => {
      expect(() => loadDemoConfig({ KEYWARD_MAX_KEY_LIFETIME: value })).toThrow(
        /KEYWARD_MAX_KEY_LIFETIME must be a whole number and a unit/,
      );
    },
  );
});
