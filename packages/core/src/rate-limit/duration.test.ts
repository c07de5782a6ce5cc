import { describe, expect, it } from "vitest";
import { parseDuration, type RateLimitConfig, toPolicy } from "./duration.js";

describe("parseDuration", () => {
  it.each([
    ["500ms", 500],
    ["30s", 30_000],
    ["1m", 60_000],
    ["1h", 3_600_000],
    ["1d", 86_400_000],
    ["1.5s", 1_500],
    ["1.1s", 1_100],
    ["0.25m", 15_000],
    [" 10 s ", 10_000],
    ["0ms", 0],
    [250, 250],
    [0, 0],
  ] as const)("%o is %d ms", (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each([
    "",
    "1",
    "60",
    "m",
    "1 minute",
    "1M",
    "1S",
    "-1s",
    "1.s",
    ".5s",
    "1e3ms",
    "1m30s",
    "1w",
  ])("rejects %o with a TypeError naming it", (input) => {
    expect(() => parseDuration(input)).toThrow(TypeError);
    expect(() => parseDuration(input)).toThrow(`Invalid duration ${JSON.stringify(input)}:`);
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])("rejects the number %d", (input) => {
    expect(() => parseDuration(input)).toThrow(new RegExp(`^Invalid duration ${input}:`));
  });

  it("rejects values that are neither strings nor numbers", () => {
    expect(() => parseDuration(null as unknown as string)).toThrow("Invalid duration null:");
    expect(() => parseDuration({} as unknown as string)).toThrow(TypeError);
  });
});

describe("toPolicy", () => {
  it("resolves the window and defaults to the sliding window", () => {
    expect(toPolicy({ limit: 60, window: "1m" })).toEqual({
      algorithm: "sliding-window",
      limit: 60,
      windowMs: 60_000,
    });
    expect(toPolicy({ limit: 10, window: 1_000, algorithm: "gcra" })).toEqual({
      algorithm: "gcra",
      limit: 10,
      windowMs: 1_000,
    });
  });

  it.each([0, -1, 1.5, Number.NaN, "60"])("rejects the limit %o", (limit) => {
    const config = { limit, window: "1m" } as unknown as RateLimitConfig;
    expect(() => toPolicy(config)).toThrow(TypeError);
    expect(() => toPolicy(config)).toThrow("`limit` must be a positive integer");
  });

  it.each([0, "0s", "0.5ms", 1.5])("rejects the window %o", (window) => {
    expect(() => toPolicy({ limit: 1, window })).toThrow(
      `Invalid rate-limit window ${typeof window === "string" ? `"${window}"` : window}:`,
    );
  });

  it("passes a malformed window's parse error through", () => {
    expect(() => toPolicy({ limit: 1, window: "soon" })).toThrow('Invalid duration "soon"');
  });

  it("rejects an unknown algorithm", () => {
    const config = {
      limit: 1,
      window: "1s",
      algorithm: "leaky-bucket",
    } as unknown as RateLimitConfig;
    expect(() => toPolicy(config)).toThrow(
      'Invalid rate-limit algorithm "leaky-bucket": expected one of fixed-window, sliding-window, token-bucket, gcra',
    );
  });

  it("rejects a limit × window too large to count exactly", () => {
    expect(() => toPolicy({ limit: 1_000_000_000, window: "1d" })).toThrow("below 2^53");
    expect(toPolicy({ limit: 1_000_000_000, window: "1m" }).windowMs).toBe(60_000);
  });
});
