import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { events } from "../events/index.js";
import { createKeyward, type KeywardFeature, memoryStore } from "../index.js";
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
