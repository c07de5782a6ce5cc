import { describe, expect, it } from "vitest";
import { createKeyward } from "../keyward/create-keyward.js";
import { memoryStore } from "../memory/memory-store.js";
import { eventTypes } from "./event.js";
import { type EventTypeDeclaration, eventTypesOf } from "./event-types.js";

const data = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
const declared = (type: string, audit = true): EventTypeDeclaration => ({
  type,
  description: `${type} happened`,
  data,
  audit,
});

describe("the instance's event types", () => {
  it("are the kernel's, then the audited ones the features declare, in the features' order", () => {
    const types = eventTypesOf([
      { name: "a", eventTypes: [declared("thing.done"), declared("thing.heard", false)] },
      { name: "b" },
      { name: "c", eventTypes: [declared("other.done")] },
    ]);
    expect(types.audited).toEqual([...eventTypes, "thing.done", "other.done"]);
    expect(types.declared.map(({ type }) => type)).toEqual([
      "thing.done",
      "thing.heard",
      "other.done",
    ]);
    expect(types.audits("key.created")).toBe(true);
    expect(types.audits("thing.done")).toBe(true);
    expect(types.audits("thing.heard")).toBe(false);
    expect(types.busOnly("thing.heard")?.description).toBe("thing.heard happened");
    expect(types.busOnly("thing.done")).toBeUndefined();
    expect(types.audits("thing.nope")).toBe(false);
    expect(types.audits(42)).toBe(false);
  });

  it("refuse at start a type declared twice or one the kernel has", () => {
    expect(() =>
      eventTypesOf([
        { name: "f0", eventTypes: [declared("thing.done")] },
        { name: "f1", eventTypes: [declared("thing.done")] },
      ]),
    ).toThrow(/`f1` declares the event type `thing.done`, which `f0` has/);
    expect(() => eventTypesOf([{ name: "f0", eventTypes: [declared("key.created")] }])).toThrow(
      /`f0` declares the event type `key.created`, which the kernel has/,
    );
  });

  it("are checked by createKeyward", () => {
    const feature = (name: string) => ({
      name,
      eventTypes: [declared("thing.done")],
      install: () => ({}),
    });
    expect(() =>
      createKeyward({
        store: memoryStore(),
        scopes: { "profile:read": "Read" },
        tiers: { free: { rateLimit: { limit: 10, window: "1m" } } },
        jwt: false,
        logger: false,
        features: [feature("one"), feature("two")],
      }),
    ).toThrow(/`two` declares the event type `thing.done`, which `one` has/);
  });
});
