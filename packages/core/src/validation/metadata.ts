import type { Type } from "arktype";
import { pydanticMeta } from "./issues.js";
import { validation } from "./jitless.js";

/** The largest metadata accepted: its JSON serialization in UTF-8 bytes. */
export const maxMetadataBytes = 4096;

/**
 * Why `value` cannot be key metadata, as a Pydantic-style issue, or null when it can: a JSON object
 * (not an array, not null) of at most 4 KiB serialized, measured as stored, in UTF-8 bytes. A body
 * already parsed from JSON is JSON, so only the shape and the size need checking.
 */
export function metadataProblem(value: unknown): { type: string; msg: string } | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { type: "dict_type", msg: "Input should be a valid dictionary" };
  }
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  return bytes <= maxMetadataBytes
    ? null
    : {
        type: "value_error",
        msg: `Value error, metadata must be at most ${maxMetadataBytes} bytes as JSON (got ${bytes})`,
      };
}

/** Metadata on create: an object. On update, `null` also passes (it removes the metadata). */
export function metadataSchema(options: { nullable: boolean }) {
  return validation.type("unknown").narrow((value, ctx) => {
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
  }) as unknown as Type<Record<string, unknown>>;
}
