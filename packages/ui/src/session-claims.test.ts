import { describe, expect, it } from "vitest";
import { mintToken } from "../../../examples/shared/src/token.js";
import { readSessionClaims } from "./session-claims.js";

const secret = "a-session-claims-test-secret-of-at-least-32-bytes";

describe("readSessionClaims", () => {
  it("reads the tier and the orgs claim of a JWT as the demo signs it", async () => {
    const token = await mintToken({
      sub: "bob",
      tier: "pro",
      secret,
      orgs: [{ id: "acme", role: "admin", tier: "enterprise" }],
    });
    expect(readSessionClaims(token)).toEqual({
      tier: "pro",
      organizations: [{ id: "acme", role: "admin", tier: "enterprise" }],
    });
  });

  it("reads nothing from a token that is not a JWT, and skips memberships without an id", () => {
    expect(readSessionClaims("opaque-session-id")).toEqual({ organizations: [] });
    expect(readSessionClaims(undefined)).toEqual({ organizations: [] });
    const payload = btoa(JSON.stringify({ orgs: [{ role: "admin" }, { id: "a" }, "x"] }));
    expect(readSessionClaims(`h.${payload.replace(/=+$/, "")}.s`)).toEqual({
      organizations: [{ id: "a" }],
    });
  });
});
