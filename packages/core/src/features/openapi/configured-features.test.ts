import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { createKeyward, type KeywardFeature, memoryStore } from "../../index.js";
import { lifecycle } from "../lifecycle/index.js";
import { organizations } from "../organizations/index.js";
import { type OpenApiApi, openapi } from "./index.js";

const members = organizations({ memberships: () => [] });

/** The document of an instance listing `features` besides openapi(). */
function documentWith(...features: KeywardFeature<string, unknown>[]) {
  return documentOf({}, ...features);
}

/** The document of an instance with these kernel options (`keys`) and features. */
function documentOf(
  kernel: { keys?: { environments: Record<string, string> } },
  ...features: KeywardFeature<string, unknown>[]
) {
  const keyward = createKeyward({
    ...kernel,
    store: memoryStore(),
    scopes: { "profile:read": "Read profiles" },
    tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
    jwt: { secret: "openapi-test-secret-of-at-least-32-bytes!!" },
    logger: false,
    features: [openapi(), ...features],
  }) as unknown as { openapi: OpenApiApi };
  return keyward.openapi();
}

function forbiddenCodes(document: ReturnType<typeof documentWith>): unknown {
  const schema = document.components.responses.Forbidden?.content?.["application/json"]?.schema as {
    properties: { code: unknown };
  };
  return schema.properties.code;
}

describe("keyward.openapi() with organizations and key updates", () => {
  it("is a valid OpenAPI 3.1 document with both on", async () => {
    const document = documentWith(members, lifecycle());
    const result = await new Validator().validate(document as never);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it("describes PATCH {basePath}/{key_id} only with keyUpdates", () => {
    const without = documentWith();
    expect(without.paths["/api/v1/api-keys/{key_id}"]?.patch).toBeUndefined();
    expect(without.components.schemas.UpdateKeyBody).toBeUndefined();

    const document = documentWith(lifecycle());
    const item = document.paths["/api/v1/api-keys/{key_id}"];
    expect(item?.patch?.operationId).toBe("updateKey");
    expect(item?.patch?.requestBody).toMatchObject({
      content: { "application/json": { schema: { $ref: "#/components/schemas/UpdateKeyBody" } } },
    });
    expect(Object.keys(item?.patch?.responses ?? {}).sort()).toEqual(
      [
        "200",
        "400",
        "401",
        "403",
        "404",
        "409",
        "410",
        "412",
        "413",
        "415",
        "422",
        "429",
        "500",
      ].sort(),
    );
    // If-Match is declared, and the record's ETag on the answer.
    expect(item?.patch?.parameters).toContainEqual({ $ref: "#/components/parameters/IfMatch" });
    const ok = item?.patch?.responses?.["200"] as { headers?: Record<string, unknown> };
    expect(Object.keys(ok.headers ?? {})).toContain("ETag");
    expect(item?.options?.description).toContain("Allow: DELETE, PATCH, OPTIONS");
    const body = document.components.schemas.UpdateKeyBody as {
      properties: Record<string, unknown>;
      required?: unknown;
    };
    expect(Object.keys(body.properties).sort()).toEqual([
      "allowedIps",
      "enabled",
      "metadata",
      "name",
      "scopes",
    ]);
    expect(body.required).toBeUndefined();
    expect(body.properties.enabled).toMatchObject({ type: "boolean" });
    expect(body.properties.metadata).toMatchObject({
      anyOf: [{ type: "object" }, { type: "null" }],
    });
  });

  it("describes the rotate body only with gracefulRotation, with its configured maximum", () => {
    const without = documentWith();
    expect(without.components.schemas.RotateKeyBody).toBeUndefined();
    expect(without.paths["/api/v1/api-keys/{key_id}/rotate"]?.post?.requestBody).toBeUndefined();
    const document = documentWith(lifecycle({ gracefulRotation: { maxGracePeriodSeconds: 3600 } }));
    expect(document.paths["/api/v1/api-keys/{key_id}/rotate"]?.post?.requestBody).toMatchObject({
      required: false,
      content: { "application/json": { schema: { $ref: "#/components/schemas/RotateKeyBody" } } },
    });
    expect(document.components.schemas.RotateKeyBody).toMatchObject({
      type: "object",
      properties: { gracePeriodSeconds: { type: "integer", minimum: 0, maximum: 3600 } },
    });
  });

  it("takes organizationId on create and list only with organizations", () => {
    const plain = documentWith();
    const plainBody = plain.components.schemas.CreateKeyBody as {
      properties: Record<string, unknown>;
    };
    expect(plainBody.properties.organizationId).toBeUndefined();
    expect(plainBody.properties.metadata).toMatchObject({ type: "object" });
    const plainParameters = plain.paths["/api/v1/api-keys"]?.get?.parameters ?? [];
    expect(plainParameters.map((p) => (p as { name: string }).name)).toEqual(["limit", "cursor"]);

    const document = documentWith(members, lifecycle({ updates: false }));
    const body = document.components.schemas.CreateKeyBody as {
      properties: Record<string, unknown>;
    };
    expect(body.properties.organizationId).toMatchObject({
      type: "string",
      minLength: 1,
      maxLength: 255,
    });
    const parameters = document.paths["/api/v1/api-keys"]?.get?.parameters ?? [];
    expect(parameters.map((p) => (p as { name: string }).name)).toEqual([
      "organizationId",
      "limit",
      "cursor",
    ]);
  });

  it("describes the paged list: limit 1–1000, either a KeyList or a KeyPage, 422 for bad query", () => {
    const document = documentWith();
    const list = document.paths["/api/v1/api-keys"]?.get;
    expect(list?.parameters?.[0]).toMatchObject({
      in: "query",
      schema: { type: "integer", minimum: 1, maximum: 1000 },
    });
    expect(
      (list?.responses["200"] as { content?: Record<string, unknown> } | undefined)?.content?.[
        "application/json"
      ],
    ).toEqual({
      schema: {
        anyOf: [{ $ref: "#/components/schemas/KeyList" }, { $ref: "#/components/schemas/KeyPage" }],
      },
    });
    expect(list?.responses["422"]).toBeDefined();
    expect(document.components.schemas.KeyPage).toMatchObject({
      required: ["data", "nextCursor"],
    });
  });

  it("lists the 403 codes the configuration can raise", () => {
    expect(forbiddenCodes(documentWith())).toEqual({
      enum: [
        "api_key_not_allowed",
        "cross_site_request",
        "insufficient_scope",
        "ip_not_allowed",
        "not_owner",
        "resource_not_allowed",
        "tier_not_allowed",
      ],
    });
    expect(forbiddenCodes(documentWith(members, lifecycle({ updates: false })))).toEqual({
      enum: [
        "api_key_not_allowed",
        "cross_site_request",
        "insufficient_scope",
        "ip_not_allowed",
        "not_member",
        "not_owner",
        "resource_not_allowed",
        "role_not_permitted",
        "scope_not_grantable",
        "tier_not_allowed",
        "too_many_keys",
      ],
    });
  });

  it("describes records' metadata, owner, createdBy and the disabled status", () => {
    const record = documentWith().components.schemas.KeyRecord as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(record.properties.status).toEqual({
      enum: ["active", "disabled", "expired", "revoked"],
    });
    expect(record.properties.metadata).toMatchObject({ type: "object" });
    expect(record.properties.owner).toMatchObject({ required: ["id", "type"] });
    expect(record.properties.createdBy).toMatchObject({ type: "string" });
    expect(record.required).not.toContain("metadata");
    expect(record.required).not.toContain("owner");
  });
});

describe("keyward.openapi() with environments and IP allowlists", () => {
  const environments = { live: "sk_live_", test: "sk_test_" };
  type Schema = { properties: Record<string, Record<string, unknown>> };
  const schema = (document: ReturnType<typeof documentWith>, name: string) =>
    document.components.schemas[name] as unknown as Schema;

  it("is a valid OpenAPI 3.1 document with environments", async () => {
    const result = await new Validator().validate(
      documentOf({ keys: { environments } }, lifecycle()) as never,
    );
    expect(result.errors).toBeUndefined();
  });

  it("names the environments on create, and every prefix in the secret's pattern and the scheme", () => {
    const document = documentOf({ keys: { environments } }, lifecycle({ updates: false }));
    expect(schema(document, "CreateKeyBody").properties.environment).toMatchObject({
      type: "string",
      enum: ["live", "test"],
    });
    const recordEnvironment = JSON.stringify(schema(document, "KeyRecord").properties.environment);
    expect(recordEnvironment).toContain('"live"');
    expect(recordEnvironment).toContain('"test"');
    expect(JSON.stringify(schema(document, "KeyWithSecret"))).toContain(
      '"pattern":"^(?:sk_live_|sk_test_)[0-9A-Za-z]{36}$"',
    );
    expect(document.components.securitySchemes.apiKey).toMatchObject({
      bearerFormat: "API key (sk_live_…, sk_test_…)",
    });
  });

  it("has no environment on create without environments, and keeps v0.1's secret pattern", () => {
    const document = documentWith();
    expect(schema(document, "CreateKeyBody").properties.environment).toBeUndefined();
    expect(JSON.stringify(schema(document, "KeyWithSecret"))).toContain(
      '"pattern":"^sk_live_[0-9A-Za-z]{36}$"',
    );
  });

  it("describes allowedIps on create and on PATCH (null removes it), and the 403 it causes", () => {
    const document = documentWith(lifecycle());
    expect(schema(document, "CreateKeyBody").properties.allowedIps).toMatchObject({
      type: "array",
      minItems: 1,
      maxItems: 100,
      uniqueItems: true,
      items: { type: "string" },
    });
    expect(schema(document, "UpdateKeyBody").properties.allowedIps).toMatchObject({
      anyOf: [{ type: "array", minItems: 1 }, { type: "null" }],
    });
    expect(schema(document, "KeyRecord").properties.allowedIps).toMatchObject({ type: "array" });
    expect(forbiddenCodes(document)).toMatchObject({
      enum: expect.arrayContaining(["ip_not_allowed"]),
    });
  });
});
