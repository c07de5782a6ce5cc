import { describe, expect, it } from "vitest";
import { ifMatchPrecondition, keyEntityTag } from "./entity-tag.js";

const id = "key_4eC39HqLyjWDarjtT1zdp7dc";

describe("key entity tags", () => {
  it("names the key and the version, as a strong tag", () => {
    expect(keyEntityTag(id, 3)).toBe(`"${id}.3"`);
  });

  it("reads the versions of this key from If-Match, and none from anything else", () => {
    expect(ifMatchPrecondition(null, id)).toBeUndefined();
    expect(ifMatchPrecondition(" * ", id)).toBeUndefined();
    expect(ifMatchPrecondition(keyEntityTag(id, 3), id)).toEqual({ versions: [3] });
    expect(ifMatchPrecondition(`"x", ${keyEntityTag(id, 7)} ,${keyEntityTag(id, 9)}`, id)).toEqual({
      versions: [7, 9],
    });
    // Weak tags never match under If-Match's strong comparison; another key's tag is not this key's.
    expect(ifMatchPrecondition(`W/${keyEntityTag(id, 3)}`, id)).toEqual({ versions: [] });
    expect(ifMatchPrecondition(keyEntityTag("key_000000000000000000000000", 3), id)).toEqual({
      versions: [],
    });
    for (const garbage of [
      "",
      "3",
      `"${id}.0"`,
      `"${id}.03"`,
      `"${id}.-1"`,
      `"${id}.1e3"`,
      `"${id}."`,
    ]) {
      expect(ifMatchPrecondition(garbage, id)).toEqual({ versions: [] });
    }
  });
});
