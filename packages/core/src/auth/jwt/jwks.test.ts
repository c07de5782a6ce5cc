import { createRemoteJWKSet } from "jose";
import { describe, expect, it } from "vitest";
import { jwksKey } from "./jwks.js";

const jwksUrl = "https://auth.example.com/.well-known/jwks.json";

describe("jwksKey: the key set's durations, checked by jose", () => {
  it.each([
    ["cooldownMs", -1, "jwt.cooldownMs must be a number of milliseconds >= 0"],
    ["cacheMaxAgeMs", Number.NaN, "jwt.cacheMaxAgeMs must be a number of milliseconds >= 0"],
    ["timeoutMs", 1.5, "jwt.timeoutMs must be a whole number of milliseconds >= 0"],
    ["timeoutMs", Number.POSITIVE_INFINITY, "jwt.timeoutMs must be a whole number"],
  ])("names our option when jose refuses %s = %s", (name, value, message) => {
    expect(() => jwksKey({ jwksUrl, [name]: value })).toThrow(message);
  });

  it("refuses a duration that is not a number, which jose would silently ignore", () => {
    // jose falls back to its default for a string: a typo would go unnoticed.
    const lenient = { cooldownDuration: "30000" as unknown as number };
    expect(() => createRemoteJWKSet(new URL(jwksUrl), lenient)).not.toThrow();
    for (const name of ["cacheMaxAgeMs", "cooldownMs", "timeoutMs"]) {
      expect(() => jwksKey({ jwksUrl, [name]: "30000" })).toThrow(`jwt.${name} must be`);
    }
  });

  it("takes what jose takes: fractions and Infinity for the cache and the cooldown", () => {
    for (const value of [0, 0.5, 1_000, Number.POSITIVE_INFINITY]) {
      expect(() => jwksKey({ jwksUrl, cacheMaxAgeMs: value, cooldownMs: value })).not.toThrow();
    }
    expect(() => jwksKey({ jwksUrl, timeoutMs: 0 })).not.toThrow();
  });
});
