/**
 * A section a feature adds to a key's usage report (`GET {basePath}/{key_id}/usage`, and
 * `keyward.keys.usage`): one property of the report, read when the report is, described in the
 * OpenAPI document by its schema. Returned from `install` (`FeatureParts.usage`), as routes and
 * endpoints are, because reading it needs the installed feature (its store, its configuration).
 * Budgets show what each budget holds, spent and has left; metering, what its ledger counted for
 * the key's owner in the open window.
 */
import type { KeyField } from "../keys/key-field.js";
import type { JsonValue } from "../storage/key-metadata.js";
import type { StoredKey } from "../storage/key-store.js";
import type { JsonSchema } from "./openapi-types.js";

export interface UsageSection {
  /** The report's property: never one of the kernel's, nor a key field's, nor another section's. */
  readonly name: string;
  /**
   * The property's JSON Schema in the OpenAPI document's `UsageReport` (optional there): plain
   * JSON Schema, so a feature in a package of its own describes it without a schema library.
   */
  readonly schema: JsonSchema;
  /**
   * The section for one key, read once the caller may read the key's usage, beside the kernel's
   * own reads (after buffered usage was flushed). Undefined leaves the property out (the key has no
   * budget, say). A throw fails the report as a store's failure does: 500, reported, nothing shown.
   */
  read(request: UsageSectionRequest): Promise<JsonValue | undefined>;
}

/** What a section is read for. */
export interface UsageSectionRequest {
  /** The key the report is about, as stored (its owner, its fields). */
  readonly key: StoredKey;
  /** The report's time (epoch ms, the instance's clock): every section reads at the same one. */
  readonly now: number;
}

/** The usage report's own properties: a section may take none of them. */
const kernelProperties = new Set([
  "keyId",
  "totalRequests",
  "lastUsedAt",
  "endpoints",
  "daily",
  "quota",
  "credits",
]);

/**
 * Every installed feature's sections, checked: a name the report already has (the kernel's, a key
 * field's, another section's) is a configuration error, thrown at start.
 */
export function checkedUsageSections(
  sections: readonly { feature: string; section: UsageSection }[],
  fields: readonly KeyField[],
): readonly UsageSection[] {
  const taken = new Map<string, string>();
  for (const name of kernelProperties) taken.set(name, "the kernel");
  for (const field of fields) taken.set(field.name, "a key field");
  for (const { feature, section } of sections) {
    const holder = taken.get(section.name);
    if (holder !== undefined) {
      throw new TypeError(
        `Keyward: the feature \`${feature}\` adds \`${section.name}\` to the usage report, which ${holder} already shows there`,
      );
    }
    taken.set(section.name, `the feature \`${feature}\``);
  }
  return sections.map(({ section }) => section);
}

/** Each section's value for `request`, in the sections' order; those left out are not there. */
export async function readUsageSections(
  sections: readonly UsageSection[],
  request: UsageSectionRequest,
): Promise<Record<string, JsonValue>> {
  const shown: Record<string, JsonValue> = {};
  if (sections.length === 0) return shown;
  const values = await Promise.all(sections.map((section) => section.read(request)));
  sections.forEach((section, index) => {
    const value = values[index];
    if (value !== undefined) shown[section.name] = value;
  });
  return shown;
}
