import type { Type } from "arktype";
import { pydanticMeta } from "./issues.js";
import { validation } from "./jitless.js";

/** The largest metadata accepted: its JSON serialization in UTF-8 bytes. */
export const maxMetadataBytes = 4096;

/**
 * Why `value` cannot be key metadata, as a Pydantic-style issue, or null when it can: a JSON object
 * (not an array, not null) of at most 4 KiB serialized, measured as stored, in UTF-8 bytes. A body
 * already parsed from JSON is JSON, so only the shape, the size and the text no store can keep
 * need checking.
 */
export function metadataProblem(value: unknown): { type: string; msg: string } | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { type: "dict_type", msg: "Input should be a valid dictionary" };
  }
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  if (bytes > maxMetadataBytes) {
    return {
      type: "value_error",
      msg: `Value error, metadata must be at most ${maxMetadataBytes} bytes as JSON (got ${bytes})`,
    };
  }
  // After the size check, which bounds how deep this walk can go.
  const unstorable = unstorableText(value);
  return unstorable
    ? {
        type: "value_error",
        msg: `Value error, metadata must not contain ${unstorable}, which not every store can keep`,
      }
    : null;
}

/**
 * U+0000 (PostgreSQL's jsonb refuses it: the write would fail) and lone surrogates (not Unicode:
 * PostgreSQL refuses them too, and UTF-8 stores turn them into U+FFFD, so stores would disagree)
 * anywhere in the metadata, keys included: what was found, or null. Other characters are kept as
 * given (metadata is the host's data, a newline in a note is fine).
 */
function unstorableText(value: unknown): string | null {
  if (typeof value === "string") {
    if (value.includes("\u0000")) return "U+0000";
    return /\p{Cs}/u.test(value) ? "a lone surrogate" : null;
  }
  if (typeof value !== "object" || value === null) return null;
  const entries = Array.isArray(value) ? value : Object.entries(value).flat();
  for (const item of entries) {
    const found = unstorableText(item);
    if (found) return found;
  }
  return null;
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
