/**
 * `verify`'s phases as features add to them through `extends.verify`: each phase runs after the
 * kernel's own step, in the order the features are listed, and a refusal in one phase stops the
 * request before the next.
 */
import { describe, expect, it } from "vitest";
import { manualClock } from "../clock.js";
import type { KeywardFeature } from "../feature-interface/feature.js";
import { createKeyward } from "../keyward/create-keyward.js";
import type { KeyLimitPlan } from "../limits/resolve-layers.js";
import { memoryStore } from "../memory/memory-store.js";
import type { ChargeStep } from "./charge-steps.js";
import type { KeyResolver } from "./key-resolvers.js";
import type { Spend } from "./spend-steps.js";
import type { VerifyPhases } from "./verify-phases.js";

const start = Date.parse("2026-07-01T10:00:00.000Z");
const route = "GET /p/:slug";

const feature = (name: string, verify: Partial<VerifyPhases>): KeywardFeature<string> => ({
  name,
  extends: { verify },
  install: () => ({}),
});

async function setup(...features: KeywardFeature<string>[]) {
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "profile:read": "Read" },
    tiers: { free: { rateLimit: { limit: 5, window: "1m" } } },
    clock: manualClock(start),
    jwt: false,
    logger: false,
    features,
  });
  const created = await keyward.keys.create({
    ownerId: "alice",
    accountTier: "free",
    name: "k",
    scopes: ["profile:read"],
    tier: "free",
  });
  return { keyward, ...created };
}

/** A charge step adding a quota of `limit` a day per owner to every key's plan, once per plan. */
function dailyBudget(limit: number): ChargeStep {
  const planned = new WeakMap<KeyLimitPlan, KeyLimitPlan>();
  return {
    name: "daily-budget",
    plan(plan, { key }) {
      let budgeted = planned.get(plan);
      if (budgeted === undefined) {
        const own = plan.layers ?? [
          { layer: "key" as const, bucket: `key:${key.id}`, policy: plan.policy },
        ];
        const quota = {
          layer: "quota" as const,
          bucket: `quota:${plan.owner}`,
          limit,
          period: "day" as const,
        };
        budgeted = { ...plan, layers: [...own, quota] };
        planned.set(plan, budgeted);
      }
      return budgeted;
    },
  };
}

describe("verify's phases", () => {
  it("charge: a step's layer is charged with the kernel's, and refuses once spent", async () => {
    const { keyward, key } = await setup(feature("budget", { charge: [dailyBudget(2)] }));
    const call = () => keyward.verify(`Bearer ${key}`, { scopes: ["profile:read"], route });
    const first = await call();
    expect(first.ok).toBe(true);
    expect(first.headers["X-RateLimit-Limit"]).toBeDefined();
    expect((await call()).ok).toBe(true);
    const third = await call();
    expect(third.ok).toBe(false);
    if (!third.ok) expect(third.error.code).toBe("quota_exceeded");
    // Without the step the same instance's key would have had 5 a minute.
    const plain = await setup();
    for (let i = 0; i < 3; i++) {
      expect((await plain.keyward.verify(`Bearer ${plain.key}`, { route })).ok).toBe(true);
    }
  });

  it("spent: steps hear an admitted, layered request in the order listed; a refused one not", async () => {
    const heard: string[] = [];
    const listening = (name: string) => ({
      name,
      spent(spend: Spend) {
        heard.push(`${name}:${spend.layers.map((layer) => layer.layer).join("+")}`);
      },
    });
    const { keyward, key } = await setup(
      feature("budget", { charge: [dailyBudget(1)], spent: [listening("a")] }),
      feature("second", { spent: [listening("b")] }),
    );
    expect((await keyward.verify(`Bearer ${key}`, { route })).ok).toBe(true);
    expect((await keyward.verify(`Bearer ${key}`, { route })).ok).toBe(false);
    expect(heard).toEqual(["a:key+quota", "b:key+quota"]);
  });

  it("resolve: the first resolver that accepts a token resolves it; the kernel admits the key", async () => {
    const seen: string[] = [];
    // Stands `ext_alice` for the key created below, found under that key's own hash.
    let aliasOf = "";
    const alias = (name: string): KeyResolver => ({
      name,
      accepts(token) {
        seen.push(name);
        return token.startsWith("ext_");
      },
      resolve(_token, options, kit) {
        const hash = kit.hash(aliasOf);
        const found = kit.find(hash, options, true);
        if (found instanceof Promise) throw new Error("the memory store answers at once");
        return found !== null && "ok" in found ? found : { key: found, hash };
      },
    });
    const { keyward, key, id } = await setup(
      feature("one", { resolve: [alias("first")] }),
      feature("two", { resolve: [alias("second")] }),
    );
    aliasOf = key;
    const result = await keyward.verify("Bearer ext_alice", { scopes: ["profile:read"], route });
    expect(result.ok && result.principal.kind === "key" && result.principal.keyId).toBe(id);
    expect(seen).toEqual(["first"]);
    // The kernel's checks still apply to a resolved key: revoked, it is refused.
    await keyward.keys.revoke("alice", id);
    const revoked = await keyward.verify("Bearer ext_alice", { route });
    expect(revoked.ok).toBe(false);
    if (!revoked.ok) expect(revoked.error.detail).toBe("API key has been revoked");
    // A token no resolver accepts goes on as before: with JWT off, a 401.
    expect((await keyward.verify("Bearer other_token", { route })).ok).toBe(false);
  });

  it("check: a refusal stops the request before anything is charged", async () => {
    const charged: string[] = [];
    const counting: ChargeStep = {
      name: "counting",
      plan(plan) {
        charged.push("planned");
        return plan;
      },
    };
    const { keyward, key } = await setup(
      feature("refuser", {
        check: [
          { name: "no", check: (_key, _options, kit) => kit.refuse("api_key_not_allowed", "no") },
        ],
        charge: [counting],
      }),
    );
    const result = await keyward.verify(`Bearer ${key}`, { route });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe("api_key_not_allowed");
    expect(charged).toEqual([]);
  });
});
