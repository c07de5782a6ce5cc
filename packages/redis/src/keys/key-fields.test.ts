import type { StoredKey } from "@keyward/core";
import { describe, expect, it } from "vitest";
import { fromKeyFields, toKeyFields } from "./key-fields.js";

const key: StoredKey = {
  id: "key_1",
  ownerType: "user",
  ownerId: "user:1",
  createdBy: "user:1",
  name: 'CI: deploy "prod" 🚀',
  scopes: ["profile:read", "org:write"],
  tier: "pro",
  secretHash: "ab".repeat(32),
  hint: "sk_live_…wxyz",
  createdAt: 1_767_225_600_123,
  expiresAt: null,
  revokedAt: null,
  rotatedAt: null,
  previousSecretHash: null,
  previousSecretExpiresAt: null,
  version: 1,
  ownerTier: null,
  disabledAt: null,
  metadata: null,
};

describe("key hash fields", () => {
  it("round-trips a record, null times as absent fields", () => {
    const fields = toKeyFields(key);
    expect(fields).not.toContain("expiresAt");
    expect(fields).not.toContain("enabledAt");
    expect(fromKeyFields(fields)).toEqual(key);
    const full = { ...key, expiresAt: 1, revokedAt: 2, rotatedAt: 3, enabledAt: 4 };
    expect(fromKeyFields(toKeyFields(full))).toEqual(full);
  });

  it("round-trips an environment and feature fields, and writes neither for keys without them", () => {
    expect(toKeyFields(key)).not.toContain("environment");
    expect(toKeyFields(key).some((field) => field.startsWith("field:"))).toBe(false);
    const withBoth = {
      ...key,
      environment: "test",
      fields: { allowedIps: ["203.0.113.0/24", "2001:db8::/32"], empty: [], none: {} },
    };
    const written = toKeyFields(withBoth);
    // One hash field per feature field, its JSON text: an empty list stays a list.
    expect(written).toContain("field:empty");
    expect(written[written.indexOf("field:empty") + 1]).toBe("[]");
    expect(fromKeyFields(written)).toEqual(withBoth);
  });

  it("reads an empty or missing reply as no key", () => {
    expect(fromKeyFields([])).toBeNull();
    expect(fromKeyFields(null)).toBeNull();
  });
});
