/**
 * The body of a secret-scanning report: a JSON array of the matches GitHub found, each
 * `{ "token", "type", "url", "source" }` (`url` and `source` may be absent). Extra fields are
 * ignored, as on every Keyward endpoint. Checked with arktype's engine, never compiled (see
 * `validation/schema.ts`).
 */
import type { ValidationIssue } from "../../errors/validation-issue.js";
import { toValidationIssues } from "../../validation/issues.js";
import { maxBodyNesting, nestsDeeperThan } from "../../validation/json-nesting.js";
import {
  anyString,
  isRefusal,
  listOf,
  objectSchema,
  stringOrNull,
} from "../../validation/schema.js";

export interface LeakReportEntry {
  /** The string the scanner found: maybe one of our keys, maybe not. */
  token: string;
  /** The secret type the scanner matched (the name registered with GitHub). */
  type: string;
  /** Where it was found, when the scanner says. */
  url?: string | null;
  /** What kind of place it was found in (`content`, `commit`, `npm`, …), when the scanner says. */
  source?: string | null;
}

export const leakReportSchema = listOf(
  objectSchema<LeakReportEntry>({
    required: { token: anyString, type: anyString },
    optional: { url: stringOrNull, source: stringOrNull },
  }),
);

export type LeakReportValidation =
  | { ok: true; entries: LeakReportEntry[] }
  | { ok: false; issues: ValidationIssue[] };

/** The report from the raw body: 422 issues, FastAPI's way, for bad JSON or a wrong shape. */
export function parseLeakReport(bytes: Uint8Array): LeakReportValidation {
  let value: unknown;
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    // A report is a flat list of flat objects; deeper is refused before anything walks it.
    if (nestsDeeperThan(text, maxBodyNesting)) {
      return {
        ok: false,
        issues: [
          {
            loc: ["body"],
            msg: `JSON nested deeper than ${maxBodyNesting} levels`,
            type: "json_invalid",
          },
        ],
      };
    }
    value = JSON.parse(text);
  } catch {
    return {
      ok: false,
      issues: [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }],
    };
  }
  if (!Array.isArray(value)) {
    return {
      ok: false,
      issues: [{ loc: ["body"], msg: "Input should be a valid list", type: "list_type" }],
    };
  }
  const result = leakReportSchema(value);
  if (isRefusal(result)) return { ok: false, issues: toValidationIssues(result, "body") };
  return { ok: true, entries: result };
}
