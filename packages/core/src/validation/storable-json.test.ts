import { describe, expect, it } from "vitest";
import { maxBodyNesting, nestsDeeperThan } from "./json-nesting.js";
import { jsonProblem, maxJsonDepth, storableText } from "./storable-json.js";

/** An object nested `depth` levels deep, the top one counting 1. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = { a: value };
  return value;
}

describe("jsonProblem", () => {
  it("accepts what every store holds, up to the depth limit", () => {
    expect(jsonProblem({ a: [1, "two", null, true, { b: "ü🔑\n" }] })).toBeNull();
    expect(jsonProblem(nested(maxJsonDepth))).toBeNull();
  });

  it("refuses depth without recursing, however deep", () => {
    expect(jsonProblem(nested(maxJsonDepth + 1))).toEqual({ kind: "depth" });
    // Deep enough that a recursive walk (or JSON.stringify) overflows the stack.
    expect(jsonProblem(nested(200_000))).toEqual({ kind: "depth" });
  });

  it("names the first character no store can hold, in a value or a field name", () => {
    expect(jsonProblem({ a: "x\u0000" })).toEqual({
      kind: "character",
      codePoint: "U+0000",
      inKey: false,
    });
    expect(jsonProblem(JSON.parse('{"\\ud800": 1}'))).toEqual({
      kind: "character",
      codePoint: "U+D800",
      inKey: true,
    });
    expect(jsonProblem(["ok", ["\udfff"]])).toMatchObject({ codePoint: "U+DFFF" });
    // A surrogate pair is one character, and fine.
    expect(jsonProblem({ key: "🔑" })).toBeNull();
  });

  it("refuses what JSON has no form for (the host's own code may pass it)", () => {
    expect(jsonProblem({ a: Number.NaN })).toMatchObject({ kind: "value" });
    expect(jsonProblem({ a: () => 1 })).toMatchObject({ kind: "value", what: "a function" });
    expect(jsonProblem({ a: 1n })).toMatchObject({ kind: "value", what: "a bigint" });
  });
});

describe("storableText", () => {
  it("replaces only what no store can hold", () => {
    expect(storableText("https://x.test/a\u0000b\ud800c")).toBe("https://x.test/a\ufffdb\ufffdc");
    expect(storableText("fine 🔑\n")).toBe("fine 🔑\n");
  });
});

describe("nestsDeeperThan", () => {
  it("counts nesting outside strings only", () => {
    expect(nestsDeeperThan('{"a":[1,{"b":2}]}', 3)).toBe(false);
    expect(nestsDeeperThan('{"a":[1,{"b":2}]}', 2)).toBe(true);
    expect(nestsDeeperThan(`{"a":"${"[".repeat(1000)}"}`, 1)).toBe(false);
    expect(nestsDeeperThan(`{"a":"\\"${"{".repeat(1000)}"}`, 1)).toBe(false);
    expect(nestsDeeperThan("[".repeat(maxBodyNesting + 1), maxBodyNesting)).toBe(true);
  });
});
