/**
 * The building blocks of the document's response schemas: arktype schema nodes (`@ark/schema`, as
 * the kernel validates with), converted to JSON Schema by arktype's own `toJsonSchema`. Each is the
 * node arktype's definition string of the same name would build (`"number.integer >= 0"`…).
 */
import type { BaseRoot } from "@ark/schema";
import {
  type ObjectFields,
  objectSchema,
  type Schema,
  schemaNode,
} from "../../../validation/schema.js";

export const string = schemaNode<string>("string");
export const number = schemaNode<number>("number");
/** `number.integer` */
export const integer = schemaNode<number>({ domain: "number", divisor: 1 });
/** `number.integer >= 0` */
export const count = schemaNode<number>({ domain: "number", divisor: 1, min: 0 });
export const nullValue = schemaNode<null>({ unit: null });
export const falseValue = schemaNode<false>({ unit: false });
/** `Record<string, unknown>`: any JSON object. */
export const anyObject = schemaNode<Record<string, unknown>>({
  domain: "object",
  index: [{ signature: "string", value: {} }],
});
/** An ISO 8601 UTC time as every response writes it (`format` is JSON Schema's annotation). */
export const isoDateTime = schemaNode<string>({
  domain: "string",
  meta: { format: "date-time" } as never,
});

/** One of `values` (`type.enumerated`, `"'a' | 'b'"`). */
export function oneOf<const T extends string | number>(...values: readonly T[]): Schema<T> {
  return schemaNode<T>(
    values.length === 1 ? { unit: values[0] } : values.map((unit) => ({ unit })),
  );
}

/** Any of the schemas (`a | b`). */
export function either(...schemas: readonly BaseRoot[]): BaseRoot {
  return schemaNode(schemas as never);
}

/** An object with these fields (`type({ ... })`). */
export function object(fields: ObjectFields): BaseRoot {
  return objectSchema(fields);
}

/** A list of `item` (`item.array()`). */
export function listOf(item: BaseRoot): BaseRoot {
  return item.array();
}
