import { describe, expect, it } from "vitest";
import { parseCsv } from "./csv.js";

describe("parseCsv (RFC 4180)", () => {
  it("reads quoted fields with commas, doubled quotes and line breaks, CRLF, and a BOM", () => {
    expect(parseCsv('\ufeffa,b\r\n"x, y","say ""hi"""\n"two\nlines",\n')).toEqual([
      ["a", "b"],
      ["x, y", 'say "hi"'],
      ["two\nlines", ""],
    ]);
  });

  it("keeps a last row without a line break, and refuses an unclosed quote", () => {
    expect(parseCsv("a,b\n1,2")).toEqual([
      ["a", "b"],
      ["1", "2"],
    ]);
    expect(() => parseCsv('a\n"open')).toThrow("a quoted field is not closed");
  });
});
