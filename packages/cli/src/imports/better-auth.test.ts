import { describe, expect, it } from "vitest";
import { type ApiKeyRow, mapRows } from "./better-auth.js";

const row = (overrides: Partial<ApiKeyRow> = {}): ApiKeyRow => ({
  id: "k1",
  configId: "default",
  name: "ci",
  prefix: "ba_",
  key: "n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg",
  referenceId: "user_1",
  enabled: true,
  expiresAt: null,
  createdAt: new Date("2025-01-02T03:04:05Z"),
  lastRequest: null,
  permissions: null,
  metadata: null,
  remaining: null,
  refillAmount: null,
  refillInterval: null,
  ...overrides,
});
const source = { organizationConfigs: ["org"], tier: "free" };

describe("better-auth rows as import records", () => {
  it("maps permissions to scopes, refills to credits, configurations to owners, JSON to metadata", () => {
    const { records, unmapped } = mapRows(
      [
        row({
          permissions: JSON.stringify({ files: ["read", "write"], org: ["read"] }),
          remaining: 7,
          refillAmount: 100,
          refillInterval: 86_400_000,
          metadata: JSON.stringify(JSON.stringify({ plan: "team" })),
          expiresAt: new Date("2030-01-01T00:00:00Z"),
          lastRequest: new Date("2026-05-01T10:00:00Z"),
        }),
        row({
          id: "k2",
          configId: "org",
          referenceId: "org_1",
          enabled: false,
          refillAmount: 5,
          refillInterval: 30 * 86_400_000,
          remaining: 0,
        }),
      ],
      source,
    );
    expect(unmapped).toEqual([]);
    expect(records[0]).toEqual({
      source: "apikey row k1",
      record: {
        hash: { value: row().key, algorithm: "sha256", encoding: "base64url" },
        prefix: "ba_",
        owner: { type: "user", id: "user_1" },
        name: "ci",
        scopes: ["files:read", "files:write", "org:read"],
        tier: "free",
        expiresAt: "2030-01-01T00:00:00.000Z",
        createdAt: "2025-01-02T03:04:05.000Z",
        lastUsedAt: "2026-05-01T10:00:00.000Z",
        metadata: { plan: "team" },
        enabled: true,
        credits: { remaining: 7, refill: { amount: 100, period: "day" } },
      },
    });
    expect(records[1]!.record).toMatchObject({
      owner: { type: "organization", id: "org_1" },
      enabled: false,
      credits: { remaining: 0, refill: { amount: 5, period: "month" } },
    });
  });

  it("lists, with why, a row whose refill, permissions or metadata Keyward cannot take", () => {
    const { records, unmapped } = mapRows(
      [
        row({ id: "hourly", remaining: 5, refillAmount: 5, refillInterval: 3_600_000 }),
        row({ id: "bad-json", permissions: "{files:" }),
        row({ id: "bad-shape", permissions: JSON.stringify({ files: "read" }) }),
        row({ id: "fine" }),
      ],
      source,
    );
    expect(records.map((entry) => entry.source)).toEqual(["apikey row fine"]);
    expect(unmapped).toEqual([
      {
        source: "apikey row hourly",
        reason: "refills every 3600000 ms; Keyward's credits refill per UTC day or month",
      },
      { source: "apikey row bad-json", reason: "permissions is not JSON" },
      { source: "apikey row bad-shape", reason: "permissions.files must be a list of actions" },
    ]);
  });
});
