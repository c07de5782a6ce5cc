/**
 * The storage suite needs raw reads of what a store persists: without them it would pass a store
 * that writes secrets, so it refuses to register at all, in the types and at run time.
 */
import { memoryStore } from "@keyward/core";
import { expect, it } from "vitest";
import { describeStorageConformance, type StorageSuiteOptions } from "../src/index.js";

const createStore = () => memoryStore();
const dump = async () => ({});

it("requires a probe with both dump and rawKey in the options' type", () => {
  // @ts-expect-error the probe is required
  const withoutProbe: StorageSuiteOptions = { createStore };
  // @ts-expect-error rawKey is required
  const withoutRawKey: StorageSuiteOptions = { createStore, probe: { dump } };
  expect([withoutProbe, withoutRawKey]).toHaveLength(2);
});

it("refuses to register without a probe, naming the option", () => {
  const unchecked = describeStorageConformance as (name: string, options: unknown) => void;
  expect(() => unchecked("no probe", { createStore })).toThrow(/probe: \{ dump, rawKey \}/);
  expect(() => unchecked("dump only", { createStore, probe: { dump } })).toThrow(
    /probe: \{ dump, rawKey \}/,
  );
});
