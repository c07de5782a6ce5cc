import type { ValidationIssue } from "../errors/validation-issue.js";
import { notAnObjectIssue, pydanticMeta, toValidationIssues } from "./issues.js";
import { checked, isRefusal, objectSchema, type Schema } from "./schema.js";

/** The body `POST /api-keys/{key_id}/rotate` takes with `gracefulRotation`; all of it optional. */
export interface RotateKeyBody {
  /** How long the replaced secret keeps working, in whole seconds; 0 (the default) for not at all. */
  gracePeriodSeconds?: number;
}

export type RotateKeyValidation =
  | { ok: true; value: RotateKeyBody }
  | { ok: false; issues: ValidationIssue[] };

/**
 * The rotate body for a configured maximum grace, in seconds. Whole seconds only: a grace is
 * minutes to days, and a fraction would only be rounded somewhere less visible than here.
 *
 * A narrow rather than arktype's numeric constraints (`0 <= number.integer <= n`): those built
 * nodes that arktype compiled with `new Function` on first use even in the jitless scope, which
 * Workers refuse during a request (see `schema.ts`). The OpenAPI document states the same range
 * (openapi/schemas/create-key-body.ts).
 */
export function rotateKeyBodySchema(maxGracePeriodSeconds: number): Schema<RotateKeyBody> {
  const gracePeriodSeconds = checked<number>((value, ctx) => {
    if (typeof value !== "number" || !Number.isFinite(value)) {
      return ctx.reject({
        expected: "a whole number of seconds",
        actual: typeof value,
        meta: pydanticMeta("int_type", "Input should be a valid integer"),
      });
    }
    if (!Number.isInteger(value)) {
      return ctx.reject({
        expected: "a whole number of seconds",
        actual: String(value),
        meta: pydanticMeta(
          "int_from_float",
          "Input should be a valid integer, got a number with a fractional part",
        ),
      });
    }
    if (value < 0) {
      return ctx.reject({
        expected: "0 or more",
        actual: String(value),
        meta: pydanticMeta("greater_than_equal", "Input should be greater than or equal to 0"),
      });
    }
    if (value > maxGracePeriodSeconds) {
      return ctx.reject({
        expected: `at most ${maxGracePeriodSeconds}`,
        actual: String(value),
        meta: pydanticMeta(
          "less_than_equal",
          `Input should be less than or equal to ${maxGracePeriodSeconds}`,
        ),
      });
    }
    return true;
  });
  return objectSchema<RotateKeyBody>({ optional: { gracePeriodSeconds } });
}

/** `input` is the parsed body, which may be any JSON value, or `{}` when there was none. */
export function validateRotateKeyBody(
  schema: ReturnType<typeof rotateKeyBodySchema>,
  input: unknown,
): RotateKeyValidation {
  const notAnObject = notAnObjectIssue(input);
  if (notAnObject) return { ok: false, issues: notAnObject };
  const result = schema(input);
  if (isRefusal(result)) {
    return { ok: false, issues: toValidationIssues(result, "body") };
  }
  const { gracePeriodSeconds } = result;
  return { ok: true, value: gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds } };
}
