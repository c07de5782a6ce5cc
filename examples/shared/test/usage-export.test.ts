/**
 * The example feature written only against the feature interface (src/usage-export): its endpoint
 * answers after the kernel's session checks with the usage endpoint's own access rules, and its
 * path joins the OpenAPI document.
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { openapi } from "@keyward/core/openapi";
import { organizations } from "@keyward/core/organizations";
import { Validator } from "@seriousme/openapi-schema-validator";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { usageExport } from "../src/usage-export/index.js";
import { usageCsv } from "../src/usage-export/usage-csv.js";

const secret = "usage-export-test-secret-of-at-least-32-bytes";
const base = "http://demo.test/api/v1/api-keys";

async function setup(listed = true) {
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "profile:read": "Read profiles" },
    tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
    jwt: { secret },
    logger: false,
    features: [
      organizations({ memberships: (claims) => (Array.isArray(claims.orgs) ? claims.orgs : []) }),
      openapi(),
      ...(listed ? [usageExport()] : []),
    ],
  });
  const token = (sub: string, claims: Record<string, unknown> = {}) =>
    new SignJWT({ tier: "free", ...claims })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(secret));
  const get = async (path: string, sub: string, claims?: Record<string, unknown>) =>
    keyward.handle(
      new Request(`${base}${path}`, {
        headers: { authorization: `Bearer ${await token(sub, claims)}` },
      }),
    );
  const key = await keyward.keys.create({
    ownerId: "alice",
    accountTier: "free",
    name: "export me",
    scopes: ["profile:read"],
    tier: "free",
  });
  return { keyward, get, key };
}

describe("usageExport(): a feature on the interface alone", () => {
  it("answers the owner with the key's daily usage as CSV", async () => {
    const { keyward, get, key } = await setup();
    for (let i = 0; i < 3; i++) {
      const result = await keyward.verify(`Bearer ${key.key}`, { route: "GET /profiles/:slug" });
      expect(result.ok).toBe(true);
    }
    const response = await get(`/${key.id}/usage.csv`, "alice");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="${key.id}-usage.csv"`,
    );
    const today = new Date().toISOString().slice(0, 10);
    expect(await response.text()).toBe(`date,requests\r\n${today},3\r\n`);
    // The kernel's rate-limit headers come with it, as on every endpoint.
    expect(response.headers.get("x-ratelimit-limit")).not.toBeNull();
  });

  it("refuses as the usage endpoint does: no session, another owner's key, an unknown key", async () => {
    const { keyward, get, key } = await setup();
    const anonymous = await keyward.handle(new Request(`${base}/${key.id}/usage.csv`));
    expect(anonymous.status).toBe(401);
    const other = await get(`/${key.id}/usage.csv`, "mallory");
    expect(other.status).toBe(403);
    expect(await other.json()).toMatchObject({ code: "not_owner" });
    const unknown = await get("/key_0000000000000000000000/usage.csv", "alice");
    expect(unknown.status).toBe(404);
    // Only GET: the router answers other methods with 405 and the path's methods.
    const post = await keyward.handle(
      new Request(`${base}/${key.id}/usage.csv`, { method: "OPTIONS" }),
    );
    expect(post.headers.get("allow")).toBe("GET, OPTIONS");
  });

  it("is not there unless listed", async () => {
    const { get, key } = await setup(false);
    expect((await get(`/${key.id}/usage.csv`, "alice")).status).toBe(404);
  });

  it("joins the OpenAPI document with its path, which stays a valid document", async () => {
    const { keyward } = await setup();
    const document = keyward.openapi();
    expect(document.paths["/api/v1/api-keys/{key_id}/usage.csv"]?.get?.operationId).toBe(
      "exportKeyUsage",
    );
    const result = await new Validator().validate(document as never);
    expect(result.errors).toBeUndefined();
  });
});

describe("usageCsv", () => {
  it("writes a header and one CRLF-ended row per day, oldest first", () => {
    expect(usageCsv([])).toBe("date,requests\r\n");
    expect(
      usageCsv([
        { date: "2026-05-02", count: 7 },
        { date: "2026-05-01", count: 3 },
      ]),
    ).toBe("date,requests\r\n2026-05-01,3\r\n2026-05-02,7\r\n");
  });
});
