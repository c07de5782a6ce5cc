import {
  maxResourceIdLength,
  maxResourceIds,
  maxResourceKinds,
  resourceKindPattern,
} from "../../keys/key-resources.js";
import { pydanticMeta } from "../../validation/issues.js";
import { checked, type Schema } from "../../validation/schema.js";

// C0 and C1 controls: an id is matched against what a route takes from its path, never text to
// show. A lone surrogate (half a UTF-16 pair) is no character at all: no store keeps it as given
// (PostgreSQL refuses it), and no route's path holds one.
const forbiddenCharacter = /\p{Cc}|\p{Cs}/u;

/**
 * `resources` on create and update: an object from kind to the ids of that kind the key may be used
 * for, `{ profile: ["alice", "bob"] }`; at least one kind, at most 20; each list at most 100 ids,
 * none twice; an id 1–256 characters without control characters or lone surrogates. A kind is
 * any name the pattern takes, `constructor` too: kinds are only ever read as own properties. An empty list is allowed: the
 * key may be used for no resource of that kind. Every bad entry is reported at its own path.
 * `null` is refused with what the caller likely meant: on create, a key for every resource is one
 * without the field; on update, null would lift every limit, and resources can only be narrowed.
 */
export function resourcesSchema(
  body: "create" | "update" = "create",
): Schema<Record<string, string[]>> {
  const nullMessage =
    body === "update"
      ? "Input should be a valid dictionary: null would lift every limit, and resources can only be narrowed"
      : "Input should be a valid dictionary: leave resources out for a key usable for every resource";
  return checked<Record<string, string[]>>((value, ctx) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return ctx.reject({
        expected: "an object of resource kinds to lists of ids",
        actual: value === null ? "null" : Array.isArray(value) ? "a list" : typeof value,
        meta: pydanticMeta(
          "dict_type",
          value === null ? nullMessage : "Input should be a valid dictionary",
        ),
      });
    }
    const kinds = Object.keys(value);
    if (kinds.length === 0) {
      return ctx.reject({
        expected: "at least one kind",
        actual: "",
        meta: pydanticMeta(
          "too_short",
          "Dictionary should have at least 1 item after validation, not 0; leave resources out for a key usable for every resource",
        ),
      });
    }
    if (kinds.length > maxResourceKinds) {
      return ctx.reject({
        expected: `at most ${maxResourceKinds} kinds`,
        actual: "",
        meta: pydanticMeta(
          "too_long",
          `Dictionary should have at most ${maxResourceKinds} items after validation, not ${kinds.length}`,
        ),
      });
    }
    let valid = true;
    for (const kind of kinds) {
      const ids = (value as Record<string, unknown>)[kind];
      if (!resourceKindPattern.test(kind)) {
        valid = ctx.reject({
          relativePath: [kind],
          expected: "a resource kind",
          actual: "",
          meta: pydanticMeta(
            "value_error",
            "Value error, a resource kind is a letter followed by letters, digits and _ . : - (at most 64 characters)",
          ),
        });
        continue;
      }
      if (!Array.isArray(ids)) {
        valid = ctx.reject({
          relativePath: [kind],
          expected: "a list of ids",
          actual: typeof ids,
          meta: pydanticMeta("list_type", "Input should be a valid list"),
        });
        continue;
      }
      if (ids.length > maxResourceIds) {
        valid = ctx.reject({
          relativePath: [kind],
          expected: `at most ${maxResourceIds} ids`,
          actual: "",
          meta: pydanticMeta(
            "too_long",
            `List should have at most ${maxResourceIds} items after validation, not ${ids.length}`,
          ),
        });
        continue;
      }
      const seen = new Set<string>();
      ids.forEach((id: unknown, index) => {
        const problem = idProblem(id, seen);
        if (problem === undefined) {
          seen.add(id as string);
          return;
        }
        valid = ctx.reject({
          relativePath: [kind, index],
          expected: "a resource id",
          actual: "",
          meta: problem,
        });
      });
    }
    return valid;
  });
}

function idProblem(id: unknown, seen: ReadonlySet<string>) {
  if (typeof id !== "string") return pydanticMeta("string_type", "Input should be a valid string");
  if (id.length === 0 || id.length > maxResourceIdLength || forbiddenCharacter.test(id)) {
    return pydanticMeta(
      "value_error",
      `Value error, a resource id is 1–${maxResourceIdLength} characters without control characters or lone surrogates`,
    );
  }
  if (seen.has(id)) {
    return pydanticMeta("value_error", `Value error, ${JSON.stringify(id)} is listed twice`);
  }
  return undefined;
}
