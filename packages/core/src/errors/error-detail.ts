import type { ValidationIssue } from "./validation-issue.js";

/** What an error body's `detail` holds: a sentence, or FastAPI-style validation issues. */
export type ErrorDetail = string | ValidationIssue[];
