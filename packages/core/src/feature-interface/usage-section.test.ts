import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { type OpenApiApi, openapi } from "../features/openapi/index.js";
import { createKeyward, type KeywardFeature, manualClock, memoryStore } from "../index.js";
import type { UsageSection } from "./usage-section.js";

const secret = "usage-section-test-secret-of-32-bytes!!";
const base = {
  scopes: { "profile:read": "Read profiles" },
  tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
  jwt: { secret },
  logger: false,
} as const;

/** A feature that adds `section` to the usage report. */
function withSection(name: string, section: Omit<UsageSection, "name">): KeywardFeature {
  return { name, install: () => ({ usage: [{ name, ...section }] }) };
}

const tally: Omit<UsageSection, "name"> = {
  schema: {
    type: "object",
    properties: { owner: { type: "string" }, at: { type: "integer" } },
    required: ["owner", "at"],
  },
  read: async ({ key, now }) =>
    key.name === "quiet" ? undefined : { owner: key.ownerId, at: now },
};

async function usageOverHttp(keyward: ReturnType<typeof createKeyward>, keyId: string) {
  const token = await new SignJWT({ sub: "alice" })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(new TextEncoder().encode(secret));
  const response = await keyward.handle(
    new Request(`http://host.test/api/v1/api-keys/${keyId}/usage`, {
      headers: { authorization: `Bearer ${token}` },
    }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const newKey = (keyward: ReturnType<typeof createKeyward>, name: string) =>
  keyward.keys.create({ ownerId: "alice", name, scopes: ["profile:read"], tier: "free" });

describe("usage sections: what a feature adds to a key's usage report", () => {
  it("shows a feature's section on the report, read with the key at the report's time, and describes it", async () => {
    // Real time: the session token is checked against this clock.
    const clock = manualClock(Date.now());
    const keyward = createKeyward({
      store: memoryStore(),
      ...base,
      clock,
      features: [openapi(), withSection("tally", tally)],
    }) as ReturnType<typeof createKeyward> & { openapi: OpenApiApi };
    const loud = await newKey(keyward, "loud");
    const quiet = await newKey(keyward, "quiet");
    const over = await usageOverHttp(keyward, loud.id);
    expect(over.status).toBe(200);
    expect(over.body.tally).toEqual({ owner: "alice", at: clock.now() });
    expect((await keyward.keys.usage("alice", loud.id)).tally).toEqual(over.body.tally);
    // Undefined leaves the property out: the report is the contract's.
    expect(await keyward.keys.usage("alice", quiet.id)).not.toHaveProperty("tally");
    const report = keyward.openapi().components.schemas.UsageReport as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(report.properties.tally).toEqual(tally.schema);
    expect(report.required).not.toContain("tally");
  });

  it("a section that fails fails the report as a store does: 500, reported, nothing shown", async () => {
    const reported: unknown[] = [];
    const keyward = createKeyward({
      store: memoryStore(),
      ...base,
      onError: (error) => reported.push(error),
      features: [
        withSection("broken", {
          schema: {},
          read: async () => {
            throw new Error("ledger down");
          },
        }),
      ],
    });
    const key = await newKey(keyward, "any");
    const over = await usageOverHttp(keyward, key.id);
    expect(over.status).toBe(500);
    expect(over.body).toEqual({ detail: "Internal server error", code: "internal" });
    expect(JSON.stringify(over.body)).not.toContain("ledger down");
    expect(reported.length).toBeGreaterThan(0);
  });

  it("refuses at start a section named as a property the report already has", () => {
    const make = (...features: KeywardFeature[]) =>
      createKeyward({ store: memoryStore(), ...base, features });
    expect(() => make(withSection("credits", tally))).toThrow(
      "Keyward: the feature `credits` adds `credits` to the usage report, which the kernel already shows there",
    );
    const fielded: KeywardFeature = {
      name: "fielded",
      extends: { fields: [{ name: "tally" }] },
      install: () => ({}),
    };
    expect(() => make(fielded, withSection("tally", tally))).toThrow(
      /`tally` to the usage report, which a key field already shows there/,
    );
    const twin: KeywardFeature = {
      name: "twin",
      install: () => ({ usage: [{ name: "tally", ...tally }] }),
    };
    expect(() => make(withSection("tally", tally), twin)).toThrow(
      "Keyward: the feature `twin` adds `tally` to the usage report, which the feature `tally` already shows there",
    );
  });
});
