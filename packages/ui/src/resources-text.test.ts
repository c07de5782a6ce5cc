import { describe, expect, it } from "vitest";
import { describeResources } from "./resources-text.js";

describe("describeResources", () => {
  it("names each kind with its ids, and an empty kind as none", () => {
    expect(describeResources({ profile: ["alice", "bob"], project: [] })).toBe(
      "profile alice, bob; project none",
    );
    expect(describeResources({ profile: ["alice"] })).toBe("profile alice");
  });
});
