import { afterEach, describe, expect, it, vi } from "vitest";
import { consoleLogger, logLine } from "./logger.js";

afterEach(() => vi.restoreAllMocks());

describe("logLine", () => {
  it("puts the message, the error and its cause chain on one line", () => {
    const root = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
      code: "ECONNREFUSED",
    });
    const error = new Error("query failed\nwhile listing keys", { cause: root });
    expect(logLine("request failed (500)", error)).toBe(
      "keyward: request failed (500): Error: query failed while listing keys: Error [ECONNREFUSED]: connect ECONNREFUSED 127.0.0.1:5432",
    );
  });

  it("describes values that are not errors, and stops at a cyclic cause", () => {
    expect(logLine("odd", { reason: "x" })).toBe('keyward: odd: {"reason":"x"}');
    const cyclic = new Error("a");
    (cyclic as { cause?: unknown }).cause = cyclic;
    expect(logLine("loop", cyclic).split(": Error: a").length).toBe(5);
  });
});

describe("consoleLogger", () => {
  it("writes one line to console.error for errors and console.warn for warnings", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    consoleLogger.error("store failed", new Error("down"));
    consoleLogger.warn("odd config");
    expect(error).toHaveBeenCalledWith("keyward: store failed: Error: down");
    expect(warn).toHaveBeenCalledWith("keyward: odd config");
  });
});
