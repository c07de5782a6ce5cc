import type { KeyField } from "../../keys/key-field.js";
import {
  type KeyResourceLimits,
  maxResourceIdLength,
  maxResourceIds,
  maxResourceKinds,
  resourceKindPattern,
} from "../../keys/key-resources.js";
import { schemaNode } from "../../validation/schema.js";
import { widenedResources } from "./resources-narrowing.js";
import { resourcesSchema } from "./resources-schema.js";

/** The JSON Schema of a key's resources in a request body. */
const resourceLimits = {
  type: "object",
  minProperties: 1,
  maxProperties: maxResourceKinds,
  propertyNames: { pattern: resourceKindPattern.source },
  additionalProperties: {
    type: "array",
    items: { type: "string", minLength: 1, maxLength: maxResourceIdLength },
    maxItems: maxResourceIds,
    uniqueItems: true,
  },
};

/**
 * `resources`, the key field of resource-limited keys: on create, on update (narrowing only:
 * `widens` says what a change would add) and on the record. Not in events.
 */
export const resourcesField: KeyField<Record<string, string[]>> = {
  name: "resources",
  create: resourcesSchema(),
  update: resourcesSchema("update"),
  widens: (current, requested) =>
    widenedResources(current as KeyResourceLimits | null, requested as KeyResourceLimits),
  schema: {
    create: {
      ...resourceLimits,
      description:
        'The resources the key may be used for, by kind: `{ "profile": ["alice"] }`. A route about a resource of a kind listed here refuses any other id with 403 `resource_not_allowed`; kinds not listed are not limited. Omitted: every resource.',
    },
    update: {
      ...resourceLimits,
      description:
        "Narrower resources: every kind the key limits, each with a subset of its ids; more kinds may be added. Anything wider is refused (422).",
    },
    record: schemaNode<Record<string, string[]>>({
      domain: "object",
      index: [{ signature: "string", value: { proto: Array, sequence: "string" } }],
    }).describe(
      "The resources the key may be used for, by kind; present only on a key limited to some",
    ),
  },
};
