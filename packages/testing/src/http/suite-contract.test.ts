import { describe, expect, it } from "vitest";
import { resolveSuiteContract } from "./suite-contract.js";

const base = { fetch: async () => new Response(), jwtSecret: "s" };

describe("resolveSuiteContract", () => {
  it("defaults to the demo contract", () => {
    const contract = resolveSuiteContract(base);
    expect(contract.tiers).toEqual([
      { name: "free", limit: 60 },
      { name: "pro", limit: 600 },
      { name: "enterprise", limit: 6000 },
    ]);
    expect([contract.lowestTier.name, contract.secondTier.name, contract.highestTier.name]).toEqual(
      ["free", "pro", "enterprise"],
    );
    expect([contract.readScope, contract.writeScope, contract.otherScope]).toEqual([
      "profile:read",
      "profile:write",
      "org:read",
    ]);
    expect(contract.unrelatedScopes).toEqual(["org:read", "org:write"]);
    expect(contract.route).toBe("/api/v1/profiles/:slug");
    expect(contract.routePath("a b")).toBe("/api/v1/profiles/a%20b");
  });

  it("takes tiers in the order given, and the route's own path builder", () => {
    const contract = resolveSuiteContract({
      ...base,
      tiers: { basic: 5, plus: 50 },
      scopes: { read: "docs:read", write: "docs:write", all: ["docs:read", "docs:write"] },
      route: { template: "/v2/docs/:id", path: (id) => `/v2/docs/${id}` },
    });
    expect([contract.lowestTier, contract.secondTier, contract.highestTier]).toEqual([
      { name: "basic", limit: 5 },
      { name: "plus", limit: 50 },
      { name: "plus", limit: 50 },
    ]);
    // With no scope besides the route's two, the write scope stands in for "another scope".
    expect(contract.unrelatedScopes).toEqual([]);
    expect(contract.otherScope).toBe("docs:write");
    expect(contract.routePath("d1")).toBe("/v2/docs/d1");
  });

  it("refuses fewer than two tiers, and route scopes missing from the configured ones", () => {
    expect(() => resolveSuiteContract({ ...base, tiers: { only: 5 } })).toThrow(/at least two/);
    expect(() =>
      resolveSuiteContract({
        ...base,
        scopes: { read: "docs:read", write: "docs:write", all: ["docs:read"] },
      }),
    ).toThrow(/"docs:write"/);
  });

  it("refuses names no configuration defines: billing:write and platinum, unless configured", () => {
    expect(resolveSuiteContract(base)).toMatchObject({
      unknownScope: "billing:write",
      unknownTier: "platinum",
    });
    const contract = resolveSuiteContract({
      ...base,
      tiers: { basic: 5, platinum: 50, "platinum-2": 500 },
      scopes: {
        read: "docs:read",
        write: "docs:write",
        all: ["docs:read", "docs:write", "billing:write"],
      },
    });
    expect(contract.unknownScope).toBe("billing:write-2");
    expect(contract.unknownTier).toBe("platinum-3");
  });

  it("takes the refused names from the options, and refuses configured ones", () => {
    expect(
      resolveSuiteContract({ ...base, unknownScope: "x:y", unknownTier: "gold" }),
    ).toMatchObject({ unknownScope: "x:y", unknownTier: "gold" });
    expect(() => resolveSuiteContract({ ...base, unknownScope: "org:read" })).toThrow(
      /unknownScope: "org:read" is a configured scope/,
    );
    expect(() => resolveSuiteContract({ ...base, unknownTier: "pro" })).toThrow(
      /unknownTier: "pro" is a configured tier/,
    );
  });
});
