/**
 * The document's response schemas say what a running instance answers: each answer of an instance
 * with every feature listed is checked against its component schema by a JSON Schema validator
 * (ajv, draft 2020-12), with every object of the document closed (`additionalProperties: false`),
 * so a field the API returns that the document does not describe fails as surely as a described
 * field of the wrong type. This is what keeps `schemas/` and the API from drifting apart.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../feature-interface/openapi-types.js";
import { createKeyward, memoryStore } from "../../index.js";
import { budgets } from "../budgets/index.js";
import { events } from "../events/index.js";
import { lifecycle } from "../lifecycle/index.js";
import { organizations } from "../organizations/index.js";
import { permissions } from "../permissions/index.js";
import { type OpenApiApi, openapi } from "./index.js";

const secret = "openapi-responses-secret-of-at-least-32-bytes";

function instance() {
  return createKeyward({
    store: memoryStore(),
    scopes: { "profile:read": "Read profiles", "profile:write": "Write profiles" },
    tiers: {
      free: { rateLimit: { limit: 60, window: "1m" }, quota: { limit: 1000, period: "month" } },
      pro: { rateLimit: { limit: 600, window: "1m" } },
    },
    jwt: { secret },
    keys: { environments: { live: "sk_live_", test: "sk_test_" } },
    logger: false,
    features: [
      openapi(),
      organizations({
        memberships: (claims) => (claims.sub === "user_1" ? [{ id: "org_1", role: "owner" }] : []),
      }),
      lifecycle({ gracefulRotation: true }),
      events(),
      permissions({ lastUsedAddress: true }),
      // A usage section: each budget's standing on the report.
      budgets({ perOwner: { limit: 10_000, period: "month" }, sweepInterval: false }),
    ],
  }) as ReturnType<typeof createKeyward> & { openapi: OpenApiApi };
}

/** Every object schema closed: an undescribed field is a failure, not a pass. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== "object" || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(schema)) copy[field] = closed(value);
  if (copy.type === "object" && copy.properties && copy.additionalProperties === undefined) {
    copy.additionalProperties = false;
  }
  return copy;
}

function validatorFor(document: ReturnType<OpenApiApi>) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({
    $id: "keyward",
    components: closed(document.components) as Record<string, JsonSchema>,
  });
  return (component: string, body: unknown) => {
    const validate = ajv.getSchema(`keyward#/components/schemas/${component}`);
    if (!validate) throw new Error(`no component ${component}`);
    const valid = validate(body);
    return valid ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

describe("the OpenAPI document's response schemas", () => {
  it("describe every answer of an instance with every feature, field for field", async () => {
    const keyward = instance();
    const check = validatorFor(keyward.openapi());
    const token = await new SignJWT({ sub: "user_1" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(secret));
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await keyward.handle(
        new Request(`http://localhost/api/v1/api-keys${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
      return { status: response.status, body: await response.json() };
    };
    const answers: [string, { status: number; body: unknown }][] = [];
    const expectAnswer = (component: string, answer: { status: number; body: unknown }) => {
      answers.push([component, answer]);
      expect(check(component, answer.body), `${component}: ${JSON.stringify(answer.body)}`).toEqual(
        [],
      );
    };

    const created = await call("POST", "", {
      name: "everything",
      scopes: ["profile:read"],
      tier: "free",
      expiresAt: "2999-01-01T00:00:00Z",
      metadata: { team: "core", nested: { a: [1, null] } },
      environment: "test",
      allowedIps: ["203.0.113.0/24"],
    });
    expect(created.status).toBe(201);
    expectAnswer("KeyWithSecret", created);
    const id = (created.body as { id: string }).id;
    const organizationKey = await call("POST", "", {
      name: "team key",
      scopes: ["profile:write"],
      tier: "free",
      organizationId: "org_1",
    });
    expectAnswer("KeyWithSecret", organizationKey);
    const organizationKeyId = (organizationKey.body as { id: string }).id;

    const rotated = await call("POST", `/${id}/rotate`, { gracePeriodSeconds: 3600 });
    expectAnswer("KeyWithSecret", rotated);
    expect(rotated.body).toHaveProperty("previousSecretExpiresAt");
    // A use from an address its allowlist holds: the record and the usage show the address.
    const used = await keyward.verify(`Bearer ${(rotated.body as { key: string }).key}`, {
      route: "GET /profiles/:slug",
      clientIp: "::ffff:203.0.113.7",
    });
    expect(used.ok).toBe(true);

    const disabled = await call("PATCH", `/${organizationKeyId}`, { enabled: false, name: "off" });
    expectAnswer("KeyRecord", disabled);
    // The usage report writes buffered usage first; a listing reads what is written.
    const usage = await call("GET", `/${id}/usage`);
    expectAnswer("UsageReport", usage);
    expect(usage.body).toMatchObject({
      lastUsedAddress: "203.0.113.7",
      budgets: { held: 0, key: null, own: null, owner: { limit: 10_000, spent: 1, left: 9_999 } },
    });
    const listed = await call("GET", "");
    expectAnswer("KeyList", listed);
    expect((listed.body as { data: { id: string }[] }).data).toContainEqual(
      expect.objectContaining({ id, lastUsedAddress: "203.0.113.7" }),
    );
    expectAnswer("KeyList", await call("GET", "?organizationId=org_1"));
    expectAnswer("KeyPage", await call("GET", "?limit=1"));
    expectAnswer("EventPage", await call("GET", `/${id}/events`));
    expectAnswer("EventPage", await call("GET", `/${organizationKeyId}/events`));
    expectAnswer("RevokedKey", await call("DELETE", `/${organizationKeyId}`));
    expectAnswer("KeyList", await call("GET", ""));
    expectAnswer("ScopeList", await call("GET", "/scopes"));
    expectAnswer("ValidationError", await call("POST", "", { name: 7, scopes: [] }));
    expectAnswer("Error", await call("GET", "/key_missing/usage"));

    // The check itself can fail: a field the document does not describe is caught.
    expect(check("KeyRecord", { ...(disabled.body as object), colour: "red" })).not.toEqual([]);
    const { budgets: standing } = usage.body as { budgets: { owner: object } };
    const wrongBudgets = { ...standing, owner: { ...standing.owner, left: "plenty" } };
    expect(check("UsageReport", { ...(usage.body as object), budgets: wrongBudgets })).not.toEqual(
      [],
    );
    expect(answers.every(([, answer]) => answer.status < 500)).toBe(true);
  });
});
