import { createKeyward, type KeywardStore } from "@keyward/core";
import { lifecycle } from "@keyward/core/lifecycle";
import { createSecretHasher } from "@keyward/core/toolkit";
import { describe, expect, it } from "vitest";
import { collectStrings, uniqueId } from "./fixtures.js";
import { openStores } from "./open-stores.js";
import type { StorageSuiteOptions } from "./options.js";

const scopes = { "profile:read": "Read profiles", "profile:write": "Edit profiles" };
const tiers = {
  free: { rateLimit: { limit: 60, window: "1m" } },
  pro: { rateLimit: { limit: 600, window: "1m" } },
};

/** End-to-end checks through `createKeyward`: what reaches storage, and rotation under contention. */
export function secretsSuite<S extends KeywardStore>(options: StorageSuiteOptions<S>): void {
  describe("through createKeyward", () => {
    const openStore = openStores(options);
    const open = async () => {
      const store = await openStore();
      return {
        store,
        keyward: createKeyward({
          store,
          scopes,
          tiers,
          features: [lifecycle({ gracefulRotation: true })],
        }),
      };
    };

    const probe = options.probe;
    it("never persists a full secret, or its random part, after creates and rotations with and without grace", async () => {
      const { store, keyward } = await open();
      const ownerId = uniqueId("owner");
      const secrets: string[] = [];
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const created = await keyward.keys.create({
          ownerId,
          accountTier: "pro",
          name: `key ${i}`,
          scopes: ["profile:read"],
          tier: "free",
        });
        secrets.push(created.key);
        ids.push(created.id);
      }
      for (const id of ids.slice(0, 3)) {
        secrets.push((await keyward.keys.rotate(ownerId, id)).key);
        secrets.push((await keyward.keys.rotate(ownerId, id)).key);
      }
      // A graceful rotation keeps the replaced secret working: stored as its hash, like the current.
      const graced = secrets[3]!;
      const graceful = await keyward.keys.rotate(ownerId, ids[3]!, { gracePeriodSeconds: 3600 });
      secrets.push(graceful.key);
      const strings = collectStrings(await probe.dump(store));
      // The walk must see the data, or finding nothing would prove nothing.
      const hasher = createSecretHasher();
      const currentHash = hasher.hash(secrets.at(-1)!);
      expect(strings.some((value) => value.includes(currentHash))).toBe(true);
      const previousHash = hasher.hash(graced);
      expect(strings.some((value) => value.includes(previousHash))).toBe(true);
      for (const secret of secrets) {
        const randomPart = secret.slice("sk_live_".length, "sk_live_".length + 30);
        const leaks = strings.filter(
          (value) => value.includes(secret) || value.includes(randomPart),
        );
        expect(leaks, "a secret reached storage").toEqual([]);
      }
    });

    it("leaves exactly one working secret after 100 concurrent rotations", async () => {
      const { store, keyward } = await open();
      const ownerId = uniqueId("owner");
      const created = await keyward.keys.create({
        ownerId,
        accountTier: "free",
        name: "contended",
        scopes: ["profile:read"],
        tier: "free",
      });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 100 }, () => keyward.keys.rotate(ownerId, created.id)),
      );
      const issued = outcomes.flatMap((outcome) =>
        outcome.status === "fulfilled" ? [outcome.value.key] : [],
      );
      const refused = outcomes.flatMap((outcome) =>
        outcome.status === "rejected" ? [outcome.reason] : [],
      );
      expect(issued.length).toBeGreaterThanOrEqual(1);
      for (const reason of refused)
        expect(reason).toMatchObject({ code: "rotation_conflict", status: 409 });

      const hasher = createSecretHasher();
      const working = [];
      for (const secret of [created.key, ...issued]) {
        if (await store.keys.findByHash(hasher.hash(secret))) working.push(secret);
      }
      // Several rotations may win one after another; which finished last is not the array's
      // order, so the one working secret must be one of those issued, and never the original.
      expect(working).toHaveLength(1);
      expect(issued).toContain(working[0]);
    });
  });
}
