import { describe, expect, it } from "vitest";
import { dayField, endpointField, toKeyUsage } from "./usage-fields.js";

describe("usage hash fields", () => {
  it("reads an empty hash as zero usage", () => {
    expect(toKeyUsage("k", [])).toEqual({
      keyId: "k",
      totalRequests: 0,
      lastUsedAt: null,
      endpoints: [],
      daily: [],
    });
  });

  it("totals the days, splits method from route at the first space, and sorts", () => {
    const flat = [
      endpointField("GET", "/b"),
      "2",
      dayField("2026-03-02"),
      "4",
      "last",
      "1772400000000",
      endpointField("GET", "/search with spaces"),
      "2",
      endpointField("DELETE", "/a"),
      "2",
      dayField("2026-03-01"),
      "2",
      endpointField("GET", "/Z"),
      "0",
    ];
    expect(toKeyUsage("k", flat)).toEqual({
      keyId: "k",
      totalRequests: 6,
      lastUsedAt: 1772400000000,
      endpoints: [
        { method: "DELETE", route: "/a", count: 2 },
        { method: "GET", route: "/b", count: 2 },
        { method: "GET", route: "/search with spaces", count: 2 },
        { method: "GET", route: "/Z", count: 0 },
      ],
      daily: [
        { date: "2026-03-01", count: 2 },
        { date: "2026-03-02", count: 4 },
      ],
    });
  });
});
