/**
 * Bad input to the store and to its objects: a clear error, and nothing changed. The objects are
 * reached as the store reaches them (one `fetch` per call), in workerd.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cloudflareStore, type ObjectNamespace } from "../src/index.js";
import { startWorkerd, type Workerd } from "./support/miniflare.js";
import { storedKeyFixture } from "./support/stored-key.js";

let workerd: Workerd;
let namespace: ObjectNamespace;

beforeAll(async () => {
  workerd = await startWorkerd();
  namespace = await workerd.namespace();
}, 60_000);
afterAll(async () => {
  await workerd?.dispose();
});

describe("cloudflareStore's options", () => {
  it("refuses a namespace that is not a Durable Object binding", () => {
    expect(() => cloudflareStore({ namespace: {} as ObjectNamespace })).toThrow(
      /`namespace` must be the Durable Object namespace bound to KeywardObject/,
    );
    expect(() => cloudflareStore({ namespace: undefined as unknown as ObjectNamespace })).toThrow(
      TypeError,
    );
  });

  it("refuses an unknown limitObjects, a negative cache TTL and an empty cache", () => {
    expect(() =>
      cloudflareStore({ namespace, limitObjects: "shard" as unknown as "owner" }),
    ).toThrow(/limitObjects must be "owner" or "key"/);
    expect(() => cloudflareStore({ namespace, cacheTtlMs: -1 })).toThrow(/cacheTtlMs/);
    expect(() => cloudflareStore({ namespace, maxCachedKeys: 0 })).toThrow(/maxCachedKeys/);
  });
});

describe("a KeywardObject's calls", () => {
  const prefix = `bad${process.pid}_`;
  const keysObject = () => namespace.get(namespace.idFromName(`${prefix}keys`) as never);
  const send = async (method: string, body: string, verb = "POST") => {
    const response = await keysObject().fetch(`https://keyward.object/${method}?prefix=${prefix}`, {
      method: verb,
      body,
    });
    return (await response.json()) as { result?: unknown; error?: string };
  };

  it("answers a call that is not one with an error, and changes nothing", async () => {
    const store = cloudflareStore({ namespace, prefix });
    const key = storedKeyFixture();
    await store.keys.create(key);
    const before = await store.dump();

    expect(await send("keys.findById", "not json")).toEqual({
      error: "the call's body is not JSON",
    });
    expect(await send("keys.findById", '{"id":"x"}')).toEqual({
      error: "the call's arguments must be a JSON array",
    });
    expect(await send("keys.dropEverything", "[]")).toEqual({
      error: 'KeywardObject has no method "keys.dropEverything"',
    });
    // Inherited names are no methods either.
    expect(await send("toString", "[]")).toEqual({
      error: 'KeywardObject has no method "toString"',
    });
    expect(await send("constructor", "[]")).toEqual({
      error: 'KeywardObject has no method "constructor"',
    });
    // A duplicate create fails in the object, whole: nothing of it is written.
    await expect(store.keys.create({ ...key, secretHash: "f".repeat(64) })).rejects.toThrow(
      `A key with id ${key.id} already exists`,
    );
    expect(await store.dump()).toEqual(before);
  });
});
