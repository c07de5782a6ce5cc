/**
 * The kernel's `verifyWrappers` point with `observeVerify`: every verification heard once, with its outcome, principal
 * kind, tier, refusing layer and duration, and nothing wrapped when no feature listens.
 */
import { describe, expect, it } from "vitest";
import type { createVerify } from "../auth/verify.js";
import { wrapVerify } from "../auth/verify-wrappers.js";
import type { KeywardFeature } from "../feature-interface/feature.js";
import { createKeyward } from "../keyward/create-keyward.js";
import { memoryStore } from "../memory/memory-store.js";
import { observeVerify } from "./observed-verify.js";
import type { VerifyObservation, VerifyObserver } from "./verify-observer.js";

function listening(observer: VerifyObserver): KeywardFeature<"listening"> {
  return {
    name: "listening",
    extends: { verify: { around: [observeVerify(observer)] } },
    install: () => ({}),
  };
}

function setup(features: KeywardFeature<string>[], errors: unknown[] = []) {
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "profile:read": "Read", "profile:write": "Write" },
    tiers: {
      free: {
        rateLimit: { limit: 2, window: "1m" },
        ownerRateLimit: { limit: 3, window: "1m" },
        quota: { limit: 100, period: "day" },
      },
    },
    jwt: false,
    logger: { warn: () => {}, error: (_message: string, cause: unknown) => errors.push(cause) },
    features,
  });
  const make = () =>
    keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
  return { keyward, make };
}

describe("verify observers", () => {
  it("hear each verification once: outcome, status, kind, tier, layer, key id and duration", async () => {
    const seen: VerifyObservation[] = [];
    const { keyward, make } = setup([listening({ verified: (o) => seen.push(o) })]);
    const one = await make();
    const two = await make();
    const verify = (key: string, scopes = ["profile:read"]) =>
      keyward.verify(`Bearer ${key}`, { route: "GET /x", scopes });
    const started = performance.now();
    await verify(one.key);
    await verify(one.key, ["profile:write"]);
    await verify(one.key); // the key's own limit (2 a minute) refuses the third
    await verify(two.key); // the owner's third (refusals by the key's own limit spend none of it)
    await verify(two.key); // the owner's shared 3 a minute refuses the fourth
    await keyward.verify(undefined);
    await keyward.verify(`Bearer ${one.key.slice(0, -1)}`);
    const elapsedSeconds = (performance.now() - started) / 1000;
    expect(seen.map(({ durationSeconds, ...rest }) => rest)).toEqual([
      {
        outcome: "ok",
        status: 200,
        principalKind: "key",
        tier: "free",
        layer: undefined,
        keyId: one.id,
      },
      {
        outcome: "insufficient_scope",
        status: 403,
        principalKind: undefined,
        tier: undefined,
        layer: undefined,
        keyId: undefined,
      },
      {
        outcome: "rate_limited",
        status: 429,
        principalKind: undefined,
        tier: undefined,
        layer: "key",
        keyId: undefined,
      },
      {
        outcome: "ok",
        status: 200,
        principalKind: "key",
        tier: "free",
        layer: undefined,
        keyId: two.id,
      },
      {
        outcome: "rate_limited",
        status: 429,
        principalKind: undefined,
        tier: undefined,
        layer: "owner",
        keyId: undefined,
      },
      {
        outcome: "missing_credentials",
        status: 401,
        principalKind: undefined,
        tier: undefined,
        layer: undefined,
        keyId: undefined,
      },
      {
        outcome: "invalid_api_key",
        status: 401,
        principalKind: undefined,
        tier: undefined,
        layer: undefined,
        keyId: undefined,
      },
    ]);
    // In seconds, each within the calls' own wall time (milliseconds would be 1000 times over it).
    for (const { durationSeconds } of seen) {
      expect(durationSeconds).toBeGreaterThan(0);
      expect(durationSeconds).toBeLessThanOrEqual(elapsedSeconds);
    }
  });

  it("run the verification inside each observer's scope, the first listed outermost, each told inside its own", async () => {
    const trail: string[] = [];
    const scoped = (name: string): VerifyObserver<string> => ({
      start: () => `${name}-scope`,
      within(scope, verify) {
        trail.push(`enter ${scope}`);
        try {
          return verify();
        } finally {
          trail.push(`leave ${scope}`);
        }
      },
      verified: (observation, scope) => trail.push(`${scope}: ${observation.outcome}`),
    });
    const features: KeywardFeature<string>[] = [
      {
        name: "a",
        extends: { verify: { around: [observeVerify(scoped("a"))] } },
        install: () => ({}),
      },
      {
        name: "b",
        extends: { verify: { around: [observeVerify(scoped("b"))] } },
        install: () => ({}),
      },
    ];
    const { keyward } = setup(features);
    await keyward.verify(undefined);
    expect(trail).toEqual([
      "enter a-scope",
      "enter b-scope",
      "leave b-scope",
      "b-scope: missing_credentials",
      "leave a-scope",
      "a-scope: missing_credentials",
    ]);
  });

  it("an observer that throws is reported and changes no decision", async () => {
    const errors: unknown[] = [];
    const thrower: VerifyObserver = {
      start() {
        throw new Error("start broke");
      },
      verified() {
        throw new Error("verified broke");
      },
    };
    const { keyward, make } = setup([listening(thrower)], errors);
    const { key } = await make();
    const result = await keyward.verify(`Bearer ${key}`, { route: "GET /x" });
    expect(result.ok).toBe(true);
    expect(errors.map((error) => (error as Error).message)).toEqual([
      "start broke",
      "verified broke",
    ]);
  });

  it("with no observer, verify is the kernel's own function, unwrapped", () => {
    const verify = (() => ({}) as never) as unknown as ReturnType<typeof createVerify>;
    expect(wrapVerify(verify, undefined, () => {})).toBe(verify);
    expect(wrapVerify(verify, [], () => {})).toBe(verify);
    expect(observeVerify()(verify, () => {})).toBe(verify);
  });
});
