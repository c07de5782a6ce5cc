import { bucketFor } from "@keyward/core/toolkit";
import { describe, expect, it } from "vitest";
import { keyNames } from "./key-names.js";

/** The part of a key Redis Cluster hashes: the first `{…}` with something inside. */
function hashTag(key: string): string {
  const open = key.indexOf("{");
  const close = key.indexOf("}", open + 1);
  return open !== -1 && close > open + 1 ? key.slice(open + 1, close) : key;
}

describe("keyNames", () => {
  const names = keyNames("app:");

  it("puts an API key's rate-limit state and usage under one hash tag", () => {
    const bucket = bucketFor.key("key_1");
    expect(hashTag(names.rateLimit(bucket))).toBe(hashTag(names.usage("key_1")));
    expect(hashTag(names.rateLimit("user:1"))).not.toBe(hashTag(names.rateLimit(bucket)));
  });

  it("puts every key-store entry in one slot", () => {
    const tags = new Set(
      [
        names.keyRecord("a"),
        names.keyHash("ff"),
        names.owner({ type: "user", id: "u" }),
        names.owner({ type: "organization", id: "u" }),
        names.ownerNewest({ type: "user", id: "u" }),
        names.ownerNewest({ type: "organization", id: "u" }),
        names.keyRecordPrefix,
      ].map(hashTag),
    );
    expect(tags).toEqual(new Set(["keys"]));
  });

  it("never gives an owner's listing index the name of another owner's set", () => {
    const user = { type: "user", id: "u" } as const;
    const organization = { type: "organization", id: "u" } as const;
    const all = [user, organization].flatMap((owner) => [
      names.owner(owner),
      names.ownerNewest(owner),
    ]);
    expect(new Set(all).size).toBe(4);
    // Every owner set's name starts with the set's name for the empty id; no index name does, so
    // no id, however chosen, makes an owner set and an index share a name.
    for (const owner of [user, organization]) {
      const setNamePrefix = names.owner({ ...owner, id: "" });
      for (const other of [user, organization])
        expect(names.ownerNewest(other).startsWith(setNamePrefix)).toBe(false);
    }
  });

  it("starts every name with the prefix", () => {
    for (const name of [
      names.rateLimit("x"),
      names.usage("x"),
      names.keyRecord("x"),
      names.channel,
    ])
      expect(name.startsWith("app:")).toBe(true);
  });

  it("refuses a prefix with braces", () => {
    expect(() => keyNames("{app}:")).toThrow(TypeError);
  });
});
