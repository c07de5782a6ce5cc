import { pydanticMeta } from "./issues.js";
import { checked } from "./schema.js";
import { describeJsonProblem, jsonProblem } from "./storable-json.js";

/** The largest metadata accepted: its JSON serialization in UTF-8 bytes. */
export const maxMetadataBytes = 4096;

/**
 * Why `value` cannot be key metadata, as a Pydantic-style issue, or null when it can: a JSON object
 * (not an array, not null) that every store can hold (`storable-json.ts`: at most 32 levels deep, no
 * NUL character or lone surrogate in any string or field name), of at most 4 KiB serialized,
 * measured as stored, in UTF-8 bytes.
 */
export function metadataProblem(value: unknown): { type: string; msg: string } | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { type: "dict_type", msg: "Input should be a valid dictionary" };
  }
  // Before serializing: a value nested thousands deep would overflow `JSON.stringify`'s stack.
  const problem = jsonProblem(value);
  if (problem) {
    return { type: "value_error", msg: `Value error, metadata ${describeJsonProblem(problem)}` };
  }
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  if (bytes > maxMetadataBytes) {
    return {
      type: "value_error",
      msg: `Value error, metadata must be at most ${maxMetadataBytes} bytes as JSON (got ${bytes})`,
    };
  }
  return null;
}

/** Metadata on create: an object. On update, `null` also passes (it removes the metadata). */
export function metadataSchema(options: { nullable: boolean }) {
  return checked<Record<string, unknown> | null>((value, ctx) => {
    if (value === null && options.nullable) return true;
    const problem = metadataProblem(value);
    return (
      problem === null ||
      ctx.reject({
        expected: "a JSON object of at most 4 KiB",
        actual: "",
        meta: pydanticMeta(problem.type, problem.msg),
      })
    );
  });
}
