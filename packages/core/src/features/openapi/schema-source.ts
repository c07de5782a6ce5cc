import type { JsonSchema } from "../../feature-interface/openapi-types.js";
import type { OpenApiSchemaSource } from "./options.js";

/**
 * A host-given schema as draft 2020-12 JSON Schema: a Standard JSON Schema is converted by its
 * own library (the side that matters: what a client sends, or what it receives); a plain object
 * is taken as JSON Schema already.
 */
export function toJsonSchema(source: OpenApiSchemaSource, side: "input" | "output"): JsonSchema {
  const standard = (source as { "~standard"?: { jsonSchema?: unknown } })["~standard"];
  if (standard === undefined) return source as JsonSchema;
  const converter = standard.jsonSchema as
    | { input(options: { target: "draft-2020-12" }): JsonSchema; output: typeof Function }
    | undefined;
  if (!converter) {
    throw new TypeError(
      "Keyward: an `openapi.routes` schema is a Standard Schema without JSON Schema support; pass a JSON Schema object or a schema from a library that converts (arktype, Zod 4, Valibot)",
    );
  }
  const convert = (converter as unknown as Record<typeof side, (o: object) => JsonSchema>)[side];
  const { $schema: _dialect, ...schema } = convert({ target: "draft-2020-12" });
  return schema;
}
