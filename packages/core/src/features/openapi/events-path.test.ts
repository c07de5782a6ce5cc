import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { createKeyward, type KeywardFeature, memoryStore } from "../../index.js";
import { agentTokens } from "../agent-tokens/index.js";
import { budgets } from "../budgets/index.js";
import { events } from "../events/index.js";
import { type OpenApiApi, openapi } from "./index.js";

/** The document of an instance listing `features` besides openapi(). */
function documentWith(...features: KeywardFeature<string, unknown>[]) {
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "profile:read": "Read profiles" },
    tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
    jwt: { secret: "openapi-test-secret-of-at-least-32-bytes!!" },
    logger: false,
    features: [openapi(), ...features],
  }) as unknown as { openapi: OpenApiApi };
  return keyward.openapi();
}

describe("keyward.openapi() with events", () => {
  it("describes GET {basePath}/{key_id}/events and its schemas only with events", async () => {
    const without = documentWith();
    expect(without.paths["/api/v1/api-keys/{key_id}/events"]).toBeUndefined();
    expect(without.components.schemas.Event).toBeUndefined();
    expect(without.components.schemas.EventPage).toBeUndefined();

    const document = documentWith(events());
    const result = await new Validator().validate(document as never);
    expect(result.errors).toBeUndefined();
    const operation = document.paths["/api/v1/api-keys/{key_id}/events"]?.get;
    expect(operation?.operationId).toBe("keyEvents");
    expect(Object.keys(operation?.responses ?? {}).sort()).toEqual(
      ["200", "401", "403", "404", "422", "429", "500"].sort(),
    );
    const types = (operation?.parameters ?? []).find(
      (parameter) => "name" in parameter && parameter.name === "types",
    );
    expect(types).toMatchObject({ in: "query", schema: { type: "array" } });
    expect(document.components.schemas.EventPage).toBeDefined();
    expect(JSON.stringify(document.components.schemas.Event)).toContain("key.rotated");
  });
});

describe("keyward.openapi() with the event types features declare", () => {
  /** The document's event variants, by type, and the `types` parameter's enumeration. */
  const eventsOf = (document: ReturnType<typeof documentWith>) => {
    const event = document.components.schemas.Event as { anyOf?: unknown[]; oneOf?: unknown[] };
    const variants = (event.anyOf ?? event.oneOf ?? []) as {
      properties: { type: { const?: string }; data: unknown };
    }[];
    const operation = document.paths["/api/v1/api-keys/{key_id}/events"]?.get;
    const parameter = (operation?.parameters ?? []).find(
      (candidate) => "name" in candidate && candidate.name === "types",
    ) as unknown as { schema: { items: { enum: string[] } } };
    return {
      byType: new Map(variants.map((variant) => [variant.properties.type.const, variant])),
      filter: parameter.schema.items.enum,
    };
  };

  it("describes token.issued, budget.threshold and budget.exhausted only when their features are listed", async () => {
    const plain = eventsOf(documentWith(events()));
    expect(plain.byType.has("key.rotated")).toBe(true);
    expect(plain.byType.has("token.issued")).toBe(false);
    expect(plain.filter).not.toContain("token.issued");

    const document = documentWith(events(), agentTokens(), budgets({ sweepInterval: false }));
    const result = await new Validator().validate(document as never);
    expect(result.errors).toBeUndefined();
    const { byType, filter } = eventsOf(document);
    expect(filter).toEqual(expect.arrayContaining(["token.issued", "budget.threshold"]));
    expect(filter).toContain("budget.exhausted");
    expect(byType.get("token.issued")?.properties.data).toMatchObject({
      type: "object",
      required: expect.arrayContaining(["jti", "audience", "scopes", "expiresAt"]),
      properties: { resources: { type: "object" }, expiresAt: { format: "date-time" } },
    });
    expect(byType.get("budget.threshold")?.properties.data).toMatchObject({
      type: "object",
      required: expect.arrayContaining(["scope", "percent", "limit", "remaining", "resetsAt"]),
    });
    expect(byType.has("budget.exhausted")).toBe(true);
    // Published on the bus only: never in the audit log, so not among its events.
    expect(byType.has("budget.settled")).toBe(false);
    expect(filter).not.toContain("budget.settled");
  });
});
