/**
 * A 422's issues placed where a person looks for them: beside the create-form field each `loc`
 * names (`["body", "name"]` → the name field, `["body", "scopes", 1]` → the scopes), worded from the
 * `fields` messages; issues about anything the form has no field for stay in the general list.
 */
import type { ValidationIssue } from "./keys-client.js";
import type { KeywardMessages } from "./messages.js";

/** The create and edit forms' fields, by the body property the API names in `loc`. */
export const createFormFields = [
  "name",
  "scopes",
  "tier",
  "environment",
  "expiresAt",
  "allowedIps",
] as const;
export type CreateFormField = (typeof createFormFields)[number];

export interface PlacedIssues {
  /** One message per field (the first issue about it). */
  byField: Partial<Record<CreateFormField, string>>;
  /** Issues about no field of the form, as `field: message`. */
  general: string[];
}

export function placeIssues(issues: ValidationIssue[], messages: KeywardMessages): PlacedIssues {
  const placed: PlacedIssues = { byField: {}, general: [] };
  for (const issue of issues) {
    // loc[0] is where (body, query, path); loc[1] the property; further items an array index.
    const property = String(issue.loc[1] ?? "");
    const text = messages.fields[`${property}.${issue.type}`] ?? messages.fields[issue.type];
    if (isFormField(property)) {
      placed.byField[property] ??= text ?? issue.msg;
    } else {
      const field = issue.loc.slice(1).join(".");
      placed.general.push(field ? `${field}: ${text ?? issue.msg}` : (text ?? issue.msg));
    }
  }
  return placed;
}

function isFormField(property: string): property is CreateFormField {
  return (createFormFields as readonly string[]).includes(property);
}
