import type { ArkError, ArkErrors } from "@ark/schema";
import type { ValidationIssue } from "../errors/validation-issue.js";

/**
 * The one place where arktype's errors (`@ark/schema`'s) become FastAPI/Pydantic-style issues. Checks written for
 * Keyward carry their Pydantic type in `meta.pydanticType`; arktype's built-in checks are mapped by
 * error code and by what was expected.
 */
export function toValidationIssues(
  errors: ArkErrors,
  location: "body" | "query" | "path",
): ValidationIssue[] {
  return errors.map((error) => {
    const { type, msg } = describe(error);
    // Array.from, not path.map: arktype's path is an Array subclass whose map of an empty path
    // builds `new ReadonlyPath(0)`, a path of one element, 0.
    return { loc: [location, ...Array.from(error.path, toLocPart)], msg, type };
  });
}

/**
 * The issue for a request body that is not a JSON object, or null when it is one. arktype treats an
 * array as an object with missing fields; Pydantic, and so the contract, call it what it is.
 */
export function notAnObjectIssue(input: unknown): ValidationIssue[] | null {
  if (typeof input === "object" && input !== null && !Array.isArray(input)) return null;
  return [
    {
      loc: ["body"],
      msg: "Input should be a valid dictionary or object to extract fields from",
      type: "model_attributes_type",
    },
  ];
}

/**
 * Marks a custom arktype rejection with the Pydantic type and message it maps to. arktype keeps
 * `meta` on the error; the cast avoids widening arktype's global `ArkEnv.meta` for every user.
 */
export function pydanticMeta(pydanticType: string, pydanticMsg: string): never {
  return { pydanticType, pydanticMsg } as never;
}

function toLocPart(part: PropertyKey): string | number {
  return typeof part === "number" ? part : String(part);
}

function describe(error: ArkError): { type: string; msg: string } {
  const custom = (error.meta as { pydanticType?: string; pydanticMsg?: string }).pydanticType;
  if (custom) {
    const msg = (error.meta as { pydanticMsg?: string }).pydanticMsg ?? error.problem;
    return { type: custom, msg };
  }
  switch (error.code) {
    case "required":
      return { type: "missing", msg: "Field required" };
    case "domain":
    case "proto":
      return describeWrongType(error.expected ?? "");
    case "minLength":
      return typeof error.data === "string"
        ? { type: "string_too_short", msg: `String should have at least ${bound(error)} character` }
        : { type: "too_short", msg: `List should have at least ${bound(error)} item` };
    case "maxLength":
      return typeof error.data === "string"
        ? { type: "string_too_long", msg: `String should have at most ${bound(error)} characters` }
        : { type: "too_long", msg: `List should have at most ${bound(error)} items` };
    case "divisor":
      return {
        type: "int_from_float",
        msg: "Input should be a valid integer, got a number with a fractional part",
      };
    case "min":
      return {
        type: "greater_than_equal",
        msg: `Input should be greater than or equal to ${bound(error)}`,
      };
    case "max":
      return {
        type: "less_than_equal",
        msg: `Input should be less than or equal to ${bound(error)}`,
      };
    default:
      return { type: "value_error", msg: `Value error, ${error.problem}` };
  }
}

function describeWrongType(expected: string): { type: string; msg: string } {
  if (expected.includes("string"))
    return { type: "string_type", msg: "Input should be a valid string" };
  if (expected === "a number") return { type: "int_type", msg: "Input should be a valid integer" };
  if (expected.includes("array")) return { type: "list_type", msg: "Input should be a valid list" };
  if (expected.includes("object")) {
    return {
      type: "model_attributes_type",
      msg: "Input should be a valid dictionary or object to extract fields from",
    };
  }
  return { type: "value_error", msg: `Input should be ${expected}` };
}

function bound(error: ArkError): number {
  return (error as unknown as { rule: number }).rule;
}
