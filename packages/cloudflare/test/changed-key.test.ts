/**
 * A key changed while an isolate holds its old record in its cache, the change leaving it valid
 * (renamed, scopes narrowed, new limits, rotated with a grace period): the other isolate's next
 * request is answered as a verification of the new record answers it, never with the old record's
 * permissions and never as a failure. (Before, such a request failed once per isolate with a 500:
 * the limit object refused the old version and the store could not check the request again.)
 * Two Worker services in workerd on one namespace; the keys are changed from Node.
 */
import { createKeyward, type Keyward, manualClock } from "@keyward/core";
import { lifecycle } from "@keyward/core/lifecycle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cloudflareStore } from "../src/index.js";
import { startWorkerd, type Workerd } from "./support/miniflare.js";

let workerd: Workerd;
let run = 0;

beforeAll(async () => {
  workerd = await startWorkerd({ workers: 2 });
}, 60_000);
afterAll(async () => {
  await workerd?.dispose();
});

interface Answer {
  ok: boolean;
  name?: string;
  code?: string;
  detail?: string;
}

describe.each(["owner", "key"] as const)(
  "a key changed under an isolate's cache, limits per %s",
  (limitObjects) => {
    const setUp = async () => {
      run += 1;
      const prefix = `chg${process.pid}_${run}_`;
      const keyward: Keyward = createKeyward({
        store: cloudflareStore({ namespace: await workerd.namespace(), prefix, limitObjects }),
        scopes: { "profile:read": "Read", "profile:write": "Write" },
        // The test Worker's own tiers (`test-app.ts`, `/verify`).
        tiers: { free: { rateLimit: { limit: 1_000, window: "1m" } } },
        clock: manualClock(Date.now()),
        jwt: false,
        logger: false,
        features: [lifecycle({ gracefulRotation: true })],
      });
      const ownerId = `owner-${Math.random().toString(36).slice(2)}`;
      const key = await keyward.keys.create({
        ownerId,
        accountTier: "free",
        name: "k",
        scopes: ["profile:read", "profile:write"],
        tier: "free",
      });
      const verify = async (worker: number, secret: string, scopes?: string[]) => {
        const response = await workerd.fetch(`worker${worker}`, "/verify", {
          method: "POST",
          body: JSON.stringify({ prefix, secret, ...(scopes ? { scopes } : {}) }),
        });
        return (await response.json()) as Answer;
      };
      // Both isolates hold the key's record in their cache.
      for (const worker of [0, 1]) {
        expect(await verify(worker, key.key, ["profile:write"])).toEqual({ ok: true, name: "k" });
      }
      return { keyward, ownerId, key, verify };
    };

    it("renamed: admitted with the new record at once", async () => {
      const { keyward, ownerId, key, verify } = await setUp();
      await keyward.keys.update(ownerId, key.id, { name: "renamed" });
      expect(await verify(1, key.key)).toEqual({ ok: true, name: "renamed" });
      expect(await verify(0, key.key)).toEqual({ ok: true, name: "renamed" });
    });

    it("scopes narrowed: the dropped scope is refused on the next request, the kept one admitted", async () => {
      const { keyward, ownerId, key, verify } = await setUp();
      await keyward.keys.update(ownerId, key.id, { scopes: ["profile:read"] });
      expect(await verify(1, key.key, ["profile:write"])).toMatchObject({
        ok: false,
        code: "insufficient_scope",
      });
      expect(await verify(0, key.key, ["profile:read"])).toEqual({ ok: true, name: "k" });
    });

    it("new limits: credits set to none refuse the next request", async () => {
      const { keyward, key, verify } = await setUp();
      await keyward.keys.setLimits(key.id, { credits: { remaining: 0 } });
      expect(await verify(1, key.key)).toMatchObject({ ok: false, code: "credits_exhausted" });
      await keyward.keys.setLimits(key.id, { credits: { remaining: 1 } });
      expect(await verify(0, key.key)).toEqual({ ok: true, name: "k" });
      expect(await verify(0, key.key)).toMatchObject({ ok: false, code: "credits_exhausted" });
    });

    it("rotated: the old secret works through its grace period, and not without one", async () => {
      const { keyward, ownerId, key, verify } = await setUp();
      const graced = await keyward.keys.rotate(ownerId, key.id, { gracePeriodSeconds: 3600 });
      expect(await verify(1, key.key)).toEqual({ ok: true, name: "k" });
      expect(await verify(1, graced.key)).toEqual({ ok: true, name: "k" });
      await keyward.keys.rotate(ownerId, key.id);
      expect(await verify(0, graced.key)).toEqual({
        ok: false,
        code: "invalid_api_key",
        detail: "Invalid API key",
      });
    });
  },
);
