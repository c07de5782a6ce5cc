import { describe, expect, it } from "vitest";
import { readBearer } from "./bearer.js";

describe("readBearer", () => {
  it.each([
    ["Bearer abc", "abc"],
    ["bearer abc", "abc"],
    ["BEARER abc", "abc"],
    ["BeArEr abc", "abc"],
    ["Bearer   abc", "abc"],
    ["  Bearer abc  ", "abc"],
    ["\tBearer abc\t", "abc"],
    [
      "Bearer sk_live_4eC39HqLyjWDarjtT1zdp7dcAbCdEf123456",
      "sk_live_4eC39HqLyjWDarjtT1zdp7dcAbCdEf123456",
    ],
    [
      "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln-_",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln-_",
    ],
    ["Bearer a-._~+/Z09", "a-._~+/Z09"],
    ["Bearer abc==", "abc=="],
  ])("reads %j", (header, token) => {
    expect(readBearer(header)).toBe(token);
  });

  it.each([
    [undefined],
    [null],
    [""],
    ["   "],
    ["Bearer"],
    ["Bearer "],
    ["Bearer    "],
    ["Bearerabc"],
    ["Bearer\tabc"],
    ["Basic dXNlcjpwYXNz"],
    ["Token abc"],
    ["Bearer a b"],
    ["Bearer a, Bearer b"],
    ["Bearer a,Bearer b"],
    ["Bearer a,b"],
    ["Bearer ="],
    ["Bearer ab=c"],
    ['Bearer "abc"'],
    ["Bearer abc;"],
    ["Bearer ab\u00e9"],
    ["Bearer ab\u0000c"],
    ["Bearer abc\r\nX-Injected: 1"],
    ["Bearer token=abc"],
    ["Bearer  Bearer abc"],
  ])("rejects %j", (header) => {
    expect(readBearer(header)).toBeNull();
  });

  it("ignores non-string input at run time", () => {
    expect(readBearer(42 as unknown as string)).toBeNull();
    expect(readBearer(["Bearer a"] as unknown as string)).toBeNull();
  });

  it("refuses long hostile input", () => {
    // The "stays linear" bound on its time is in bearer.timing.test.ts (the timing project).
    const hostile = `Bearer ${"a".repeat(100_000)}${"=".repeat(100_000)}!`;
    expect(readBearer(hostile)).toBeNull();
  });
});
