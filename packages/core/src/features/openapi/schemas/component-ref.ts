import type { JsonSchema } from "../../../feature-interface/openapi-types.js";

/** A `$ref` to a schema in the document's `components.schemas`. */
export function componentRef(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}
