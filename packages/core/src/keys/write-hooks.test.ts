import { describe, expect, it } from "vitest";
import { KeywardError } from "../errors/keyward-error.js";
import { createKeyward, type KeywardFeature, memoryStore } from "../index.js";
import { anyString } from "../validation/schema.js";

const base = {
  scopes: { "profile:read": "Read profiles" },
  tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
  jwt: false,
  logger: false,
} as const;
const input = {
  ownerId: "alice",
  accountTier: "free",
  name: "k",
  scopes: ["profile:read"],
  tier: "free",
};

/**
 * A feature that only declares a field and hooks: a new feature's data, with no kernel or store
 * change. `note` comes from the body; `stamp` is written by its hooks on every write.
 */
function stampFeature(log: string[], name = "stamp"): KeywardFeature<string> {
  return {
    name,
    extends: {
      fields: [{ name: `${name}Note`, create: anyString, update: anyString }],
      writes: {
        beforeCreate: [
          {
            name,
            run: ({ fields }) => {
              log.push(`${name}:create`);
              if (fields[`${name}Note`] === "refuse") {
                throw new KeywardError("validation_failed", [
                  { loc: ["body", `${name}Note`], msg: "refused by the hook", type: "value_error" },
                ]);
              }
              return { fields: { [name]: "created" } };
            },
          },
        ],
        beforeRotate: [
          {
            name,
            run: ({ now }) => {
              log.push(`${name}:rotate`);
              return { [name]: `rotated at ${now}` };
            },
          },
        ],
        beforeUpdate: [
          {
            name,
            run: ({ fields }) => {
              log.push(`${name}:update`);
              return { [name]: `updated with ${JSON.stringify(fields)}` };
            },
          },
        ],
      },
    },
    install: () => ({}),
  };
}

describe("write hooks and key fields: a feature's own data", () => {
  it("stores the fields its hooks add with each write, in the order the features are listed", async () => {
    const store = memoryStore();
    const log: string[] = [];
    const keyward = createKeyward({
      store,
      ...base,
      features: [stampFeature(log), stampFeature(log, "second")],
    });
    const created = await keyward.keys.create({ ...input, stampNote: "hello" });
    const stored = () => store.keys.snapshot().find((key) => key.id === created.id)!;
    expect(stored().fields).toEqual({ stampNote: "hello", stamp: "created", second: "created" });
    expect(log).toEqual(["stamp:create", "second:create"]);

    await keyward.keys.update("alice", created.id, { stampNote: "changed" });
    expect(stored().fields).toMatchObject({
      stampNote: "changed",
      stamp: 'updated with {"stampNote":"changed"}',
    });

    await keyward.keys.rotate("alice", created.id);
    expect(stored().fields?.stamp).toMatch(/^rotated at \d+$/);
    expect(stored().fields?.second).toMatch(/^rotated at \d+$/);
    // A field without a record schema is kept, never shown.
    expect((await keyward.keys.list("alice"))[0]).not.toHaveProperty("stamp");
    await keyward.close();
  });

  it("writes nothing when a hook refuses", async () => {
    const store = memoryStore();
    const log: string[] = [];
    const keyward = createKeyward({
      store,
      ...base,
      features: [stampFeature(log), stampFeature(log, "second")],
    });
    await expect(keyward.keys.create({ ...input, stampNote: "refuse" })).rejects.toMatchObject({
      status: 422,
      detail: [{ loc: ["body", "stampNote"], msg: "refused by the hook" }],
    });
    // The first refusal stops the rest, and nothing was written.
    expect(log).toEqual(["stamp:create"]);
    expect(store.keys.snapshot()).toEqual([]);
    await keyward.close();
  });

  it("refuses two features declaring one key field", () => {
    expect(() =>
      createKeyward({
        store: memoryStore(),
        ...base,
        features: [
          stampFeature([]),
          { name: "other", extends: { fields: [{ name: "stampNote" }] }, install: () => ({}) },
        ],
      }),
    ).toThrow(/two features declare the key field `stampNote`/);
  });
});
