import { describe, expect, it } from "vitest";
import { createKeyward } from "../keyward/create-keyward.js";
import { memoryStore } from "../memory/memory-store.js";
import { createScopeRegistry } from "./scope-registry.js";
import {
  type ScopeRequirement,
  scopeRequirementProblem,
  unmetScopes,
} from "./scope-requirement.js";

const registry = createScopeRegistry({ a: "A", b: "B", c: "C" });

describe("unmetScopes", () => {
  // Every requirement over {a, b, c} against every set of granted scopes, checked against the
  // definition: a list and allOf need each scope, anyOf needs one.
  const subsets = (names: string[]): string[][] => {
    const sets: string[][] = [[]];
    for (const name of names) for (const set of [...sets]) sets.push([...set, name]);
    return sets;
  };
  const all = subsets(["a", "b", "c"]);

  it("a list and allOf are met exactly when every scope is held, and name the missing ones", () => {
    for (const granted of all) {
      for (const required of all) {
        const missing = required.filter((scope) => !granted.includes(scope));
        expect(unmetScopes(registry, granted, required)).toEqual(missing);
        if (required.length > 0) {
          expect(unmetScopes(registry, granted, { allOf: required })).toEqual(missing);
        }
      }
    }
  });

  it("anyOf is met exactly when one scope is held, and names them all otherwise", () => {
    for (const granted of all) {
      for (const required of all.filter((set) => set.length > 0)) {
        const met = required.some((scope) => granted.includes(scope));
        expect(unmetScopes(registry, granted, { anyOf: required })).toEqual(met ? [] : required);
      }
    }
  });

  it("throws a TypeError naming the problem of a malformed requirement", () => {
    const malformed = { anyOf: "a" } as unknown as ScopeRequirement;
    expect(() => unmetScopes(registry, ["a"], malformed)).toThrow(
      "Keyward: verify's `scopes.anyOf` must be a list of scopes",
    );
  });
});

describe("scopeRequirementProblem", () => {
  it.each([
    [["a"], undefined],
    [[], undefined],
    [{ anyOf: ["a"] }, undefined],
    [{ allOf: ["a", "b"] }, undefined],
    ["a", "`scopes` must be a list of scopes, { allOf: [...] } or { anyOf: [...] }"],
    [null, "`scopes` must be a list of scopes, { allOf: [...] } or { anyOf: [...] }"],
    [[1], "`scopes` must hold scope names (strings), got 1"],
    [{}, "`scopes` must have exactly one of `allOf` or `anyOf`, got none"],
    [{ someOf: ["a"] }, "`scopes` must have exactly one of `allOf` or `anyOf`, got `someOf`"],
    [
      { anyOf: ["a"], allOf: ["b"] },
      "`scopes` must have exactly one of `allOf` or `anyOf`, got `anyOf`, `allOf`",
    ],
    [
      { anyOf: [] },
      "`scopes.anyOf` must name at least one scope (an empty list would refuse every key; omit `scopes` instead)",
    ],
    [
      { allOf: [] },
      "`scopes.allOf` must name at least one scope (an empty list would require nothing; omit `scopes` instead)",
    ],
    [{ allOf: [null] }, "`scopes.allOf` must hold scope names (strings), got null"],
  ])("%j: %s", (requirement, problem) => {
    expect(scopeRequirementProblem(requirement)).toBe(problem);
  });
});

describe("verify with anyOf and allOf", () => {
  const setup = async () => {
    const keyward = createKeyward({
      store: memoryStore(),
      scopes: { "profile:read": "Read", "profile:write": "Write", "org:read": "Org" },
      tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
      jwt: { secret: "scope-requirement-test-secret-of-32-bytes" },
      logger: false,
    });
    const { key } = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "reader",
      scopes: ["profile:read"],
      tier: "free",
    });
    return { keyward, authorization: `Bearer ${key}` };
  };

  it("admits a key holding one scope of anyOf, refuses one holding none with 403", async () => {
    const { keyward, authorization } = await setup();
    const met = await keyward.verify(authorization, {
      scopes: { anyOf: ["profile:write", "profile:read"] },
      route: "GET /p",
    });
    expect(met.ok).toBe(true);
    const unmet = await keyward.verify(authorization, {
      scopes: { anyOf: ["profile:write", "org:read"] },
      route: "GET /p",
    });
    expect(unmet.ok).toBe(false);
    if (unmet.ok) return;
    expect(unmet.error.status).toBe(403);
    expect(unmet.error.code).toBe("insufficient_scope");
    expect(unmet.error.detail).toBe(
      "API key lacks the required scope: one of profile:write, org:read",
    );
  });

  it("refuses a key lacking one scope of allOf, naming it, as a plain list does", async () => {
    const { keyward, authorization } = await setup();
    for (const scopes of [{ allOf: ["profile:read", "org:read"] }, ["profile:read", "org:read"]]) {
      const result = await keyward.verify(authorization, { scopes, route: "GET /p" });
      expect(result.ok).toBe(false);
      if (result.ok) continue;
      expect(result.error.detail).toBe("API key lacks the required scope: org:read");
    }
  });

  it("answers a malformed requirement given to verify with a 500 it reports, never a pass", async () => {
    const failures: unknown[] = [];
    const keyward = createKeyward({
      store: memoryStore(),
      scopes: { "profile:read": "Read" },
      tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
      jwt: { secret: "scope-requirement-test-secret-of-32-bytes" },
      logger: { error: (_message: string, cause: unknown) => failures.push(cause), warn: () => {} },
    });
    const { key } = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    const result = await keyward.verify(`Bearer ${key}`, {
      scopes: { anyOf: [] } as ScopeRequirement,
      route: "GET /p",
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.status).toBe(500);
    expect(String(failures[0])).toMatch(/`scopes.anyOf` must name at least one scope/);
  });
});
