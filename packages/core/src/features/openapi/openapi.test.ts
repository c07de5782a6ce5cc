import { Validator } from "@seriousme/openapi-schema-validator";
import { type } from "arktype";
import { describe, expect, it } from "vitest";
import {
  createKeyward,
  type Keyward,
  type KeywardConfig,
  memoryStore,
  type ResponseObject,
} from "../../index.js";
import type { EventsConfig } from "../events/events-config.js";
import { events } from "../events/index.js";
import { lifecycle } from "../lifecycle/index.js";
import type { LifecycleConfig } from "../lifecycle/lifecycle-config.js";
import { type OpenApiApi, openapi } from "./index.js";
import type { OpenApiOptions } from "./options.js";
import { createKeyBodyJsonSchema } from "./schemas/create-key-body.js";

const scopes = { "profile:read": "Read profiles", "profile:write": "Edit profiles" };
const tiers = {
  free: { rateLimit: { limit: 60, window: "1m" } },
  pro: { rateLimit: { limit: 600, window: "1m" } },
} as const;

interface Overrides extends Partial<KeywardConfig> {
  openapi?: OpenApiOptions;
  lifecycle?: LifecycleConfig;
  events?: EventsConfig;
}

/** An instance listing openapi() with `overrides.openapi`, and the other features named. */
function keywardWith(overrides: Overrides = {}): Keyward & { openapi: OpenApiApi } {
  const {
    openapi: options = {},
    lifecycle: lifecycleConfig,
    events: eventsConfig,
    ...rest
  } = overrides;
  const features = [
    openapi(options),
    ...(lifecycleConfig ? [lifecycle(lifecycleConfig)] : []),
    ...(eventsConfig ? [events(eventsConfig)] : []),
  ];
  return createKeyward({
    store: memoryStore(),
    scopes,
    tiers,
    jwt: { secret: "openapi-test-secret-of-at-least-32-bytes!!" },
    logger: false,
    ...rest,
    features,
  }) as unknown as Keyward & { openapi: OpenApiApi };
}

async function validate(document: unknown) {
  return new Validator().validate(document as Record<string, unknown>);
}

describe("keyward.openapi()", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const document = keywardWith({
      openapi: { routes: [{ method: "GET", path: "/profiles/:slug", scopes: ["profile:read"] }] },
    }).openapi();
    const result = await validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe("3.1.0");
  });

  it("declares every path template variable on every operation, the CORS preflights included", () => {
    const document = keywardWith({
      lifecycle: { gracefulRotation: true },
      events: {},
      openapi: { routes: [{ method: "GET", path: "/profiles/:slug", scopes: ["profile:read"] }] },
    }).openapi();
    const parameters = (
      document.components as { parameters: Record<string, { in: string; name: string }> }
    ).parameters;
    const missing: string[] = [];
    for (const [path, item] of Object.entries(document.paths)) {
      const variables = [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => name!);
      for (const [method, operation] of Object.entries(item)) {
        if (method === "parameters" || typeof operation !== "object" || operation === null)
          continue;
        const declared = ((operation as { parameters?: unknown[] }).parameters ?? []).map((p) => {
          const ref = (p as { $ref?: string }).$ref;
          return ref ? parameters[ref.split("/").at(-1)!] : (p as { in: string; name: string });
        });
        for (const variable of variables) {
          if (!declared.some((p) => p?.in === "path" && p.name === variable)) {
            missing.push(`${method.toUpperCase()} ${path}: ${variable}`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("fails the validator when broken (the validator is real)", async () => {
    const document = keywardWith().openapi();
    document.components.securitySchemes.userJwt = { type: "bearer" };
    expect((await validate(document)).valid).toBe(false);
  });

  it("lists the six endpoints and their preflights under the configured base path", () => {
    const document = keywardWith({ http: { basePath: "/keys/" } }).openapi();
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        "GET /keys",
        "POST /keys",
        "OPTIONS /keys",
        "GET /keys/scopes",
        "OPTIONS /keys/scopes",
        "POST /keys/{key_id}/rotate",
        "OPTIONS /keys/{key_id}/rotate",
        "GET /keys/{key_id}/usage",
        "OPTIONS /keys/{key_id}/usage",
        "DELETE /keys/{key_id}",
        "OPTIONS /keys/{key_id}",
      ].sort(),
    );
  });

  it("has the configured scopes and tiers as enums, in the request and in records", () => {
    const { components } = keywardWith().openapi();
    expect(components.schemas.Scope).toEqual({ enum: ["profile:read", "profile:write"] });
    expect(components.schemas.Tier).toEqual({ enum: ["free", "pro"] });
    // Lowest first, as configured (arktype alone would sort them).
    const ranked = keywardWith({
      tiers: { pro: tiers.pro, free: tiers.free, basic: tiers.free },
    }).openapi();
    expect(ranked.components.schemas.Tier).toEqual({ enum: ["pro", "free", "basic"] });
    const record = components.schemas.KeyRecord as { properties: Record<string, unknown> };
    expect(record.properties.scopes).toEqual({
      type: "array",
      items: { enum: ["profile:read", "profile:write"] },
    });
    expect(record.properties.tier).toEqual({ enum: ["free", "pro"] });
  });

  it("converts the create-key body from its arktype schema, narrows made explicit", () => {
    const body = keywardWith().openapi().components.schemas.CreateKeyBody;
    expect(body).toMatchObject({
      type: "object",
      required: ["name", "scopes", "tier"],
      properties: {
        name: { type: "string", minLength: 1, maxLength: 100 },
        scopes: {
          type: "array",
          minItems: 1,
          uniqueItems: true,
          items: { $ref: "#/components/schemas/Scope" },
        },
        tier: { $ref: "#/components/schemas/Tier" },
        expiresAt: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
      },
    });
    // Unknown fields are ignored by the endpoint, so the schema must not refuse them.
    expect(body).not.toHaveProperty("additionalProperties");
  });

  it("refuses to describe a narrow it has no JSON Schema for", () => {
    const schema = type({
      name: type("string").narrow((value) => value.length > 0),
      scopes: "string[]",
      tier: type("string").narrow(() => true),
      expiresAt: type("unknown").narrow(() => true),
      colour: type("string").narrow((value) => value !== "red"),
    });
    expect(() => createKeyBodyJsonSchema(schema.internal as never, undefined, [])).toThrow(
      /"colour" has a check/,
    );
  });

  it("gives error responses the FastAPI body with exactly the codes of their status", () => {
    const { components } = keywardWith().openapi();
    const schemaOf = (name: string) =>
      (components.responses[name]?.content?.["application/json"]?.schema ?? {}) as {
        properties: { code: unknown; detail: unknown };
      };
    expect(schemaOf("Gone").properties).toEqual({
      code: { const: "key_gone" },
      detail: { type: "string" },
    });
    expect(schemaOf("Unauthorized").properties.code).toEqual({
      enum: ["api_key_required", "invalid_api_key", "invalid_token", "missing_credentials"],
    });
    expect(schemaOf("ValidationFailed").properties.code).toEqual({ const: "validation_failed" });
    expect(components.responses.Unauthorized?.headers?.["WWW-Authenticate"]).toMatchObject({
      required: true,
    });
    // Every 429 but one carries Retry-After: credits without a refill have no time to promise.
    const retryAfter = components.responses.TooManyRequests?.headers?.["Retry-After"] as {
      required?: boolean;
      description: string;
    };
    expect(retryAfter.required).toBeUndefined();
    expect(retryAfter.description).toContain("`credits_exhausted` for credits without a refill");
  });

  it("puts the rate-limit headers on guarded answers, the IETF fields when configured", () => {
    const plain = keywardWith().openapi();
    const listed = plain.paths["/api/v1/api-keys"]?.get?.responses["200"] as {
      headers: Record<string, { required?: boolean }>;
    };
    expect(Object.keys(listed.headers)).toEqual([
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
    ]);
    expect(Object.values(listed.headers).every((header) => header.required)).toBe(true);

    const ietf = keywardWith({ http: { rateLimitHeaders: { ietf: true } } }).openapi();
    const withIetf = ietf.paths["/api/v1/api-keys"]?.get?.responses["200"] as {
      headers: Record<string, unknown>;
    };
    expect(Object.keys(withIetf.headers)).toContain("RateLimit-Policy");
    expect(Object.keys(withIetf.headers)).toContain("RateLimit");
  });

  it("has bearer JWT security on key management and API-key security on host routes", () => {
    const document = keywardWith({
      keys: { prefix: "sk_test_" },
      openapi: {
        routes: [
          { method: "PUT", path: "/profiles/:slug", scopes: ["profile:write"] },
          { method: "GET", path: "/reports", accept: "api-key" },
        ],
      },
    }).openapi();
    expect(document.components.securitySchemes.userJwt).toMatchObject({
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
    });
    expect(document.components.securitySchemes.apiKey).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
    expect(document.paths["/api/v1/api-keys/{key_id}"]?.delete?.security).toEqual([
      { userJwt: [] },
    ]);
    expect(document.paths["/profiles/{slug}"]?.put?.security).toEqual([
      { apiKey: ["profile:write"] },
      { userJwt: [] },
    ]);
    expect(document.paths["/reports"]?.get?.security).toEqual([{ apiKey: [] }]);
    const secret = document.components.schemas.KeyWithSecret as {
      properties: { key: { pattern: string } };
    };
    expect(secret.properties.key.pattern).toBe("^sk_test_[0-9A-Za-z]{36}$");
  });

  it("takes a host route's response schema from any Standard JSON Schema", () => {
    const document = keywardWith({
      openapi: {
        routes: [
          {
            method: "GET",
            path: "/profiles/:slug",
            response: type({ slug: "string", viewer: "string" }),
          },
        ],
      },
    }).openapi();
    const ok = document.paths["/profiles/{slug}"]?.get?.responses["200"] as ResponseObject;
    expect(ok.content?.["application/json"]?.schema).toEqual({
      type: "object",
      properties: { slug: { type: "string" }, viewer: { type: "string" } },
      required: ["slug", "viewer"],
    });
  });

  it("returns a fresh copy each call", () => {
    const keyward = keywardWith();
    const first = keyward.openapi();
    first.info.title = "changed";
    expect(keyward.openapi().info.title).toBe("Keyward API keys");
  });
});

describe("serving the document", () => {
  const url = (path: string) => `http://keyward.test/api/v1/api-keys${path}`;

  it("is off by default: /openapi.json answers as any other unknown key path", async () => {
    const keyward = keywardWith();
    const served = await keyward.handle(new Request(url("/openapi.json")));
    const other = await keyward.handle(new Request(url("/not-a-key.json")));
    expect(served.status).toBe(other.status);
    expect(Object.fromEntries(served.headers)).toEqual(Object.fromEntries(other.headers));
    expect(await served.text()).toBe(await other.text());
    expect(keyward.openapi().paths).not.toHaveProperty(["/api/v1/api-keys/openapi.json"]);
  });

  it("with openapi.serve, answers GET without credentials with the document", async () => {
    const keyward = keywardWith({ openapi: { serve: true } });
    const response = await keyward.handle(new Request(url("/openapi.json")));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const document = await response.json();
    expect(document).toEqual(keyward.openapi());
    expect(document.paths["/api/v1/api-keys/openapi.json"].get.security).toEqual([]);
    expect((await validate(document)).valid).toBe(true);
  });

  it("answers OPTIONS with Allow and other methods with 405", async () => {
    const keyward = keywardWith({ openapi: { serve: true } });
    const preflight = await keyward.handle(
      new Request(url("/openapi.json"), { method: "OPTIONS" }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("allow")).toBe("GET, OPTIONS");
    const post = await keyward.handle(new Request(url("/openapi.json"), { method: "POST" }));
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
    expect(await post.json()).toEqual({ detail: "Method Not Allowed", code: "method_not_allowed" });
  });

  it("checks `openapi.routes` at start when serving", () => {
    expect(() =>
      keywardWith({ openapi: { serve: true, routes: [{ method: "FETCH", path: "/x" }] } }),
    ).toThrow(/unknown method "FETCH"/);
  });
});
