/**
 * An event and a page of the audit log as arktype schema nodes, converted to JSON Schema for the
 * document.
 * One variant per event type, so a client generator sees each type's `data`: the kernel's, then
 * those the listed features write to the audit log, from their declarations.
 */

import type { BaseRoot } from "@ark/schema";
import type { EventTypes } from "../../../event-model/event-types.js";
import type { JsonSchema } from "../../../feature-interface/openapi-types.js";
import type { KeyField } from "../../../keys/key-field.js";
import { featureFieldNodes } from "./key-record.js";
import {
  anyObject,
  either,
  falseValue,
  isoDateTime,
  listOf,
  nullValue,
  number,
  object,
  oneOf,
  string,
} from "./nodes.js";

/**
 * @param fields the listed features' key fields: those with an event schema are in key events
 * @param types the instance's event types, named in the description (the variants of those the
 * features declare are added by `eventJsonSchemas`)
 */
function eventTypesSchema(fields: readonly KeyField[], types: EventTypes) {
  const eventFields = featureFieldNodes(fields, "event");
  const changedFields = Object.fromEntries(
    Object.entries(eventFields).map(([name, node]) => [name, either(node, nullValue)]),
  );
  // Plain strings, not the configured enums: an event outlives a scope or tier removed later.
  const scopes = listOf(string);
  const metadata = anyObject.describe("The key's metadata, as set");
  const common = {
    id: string.describe("`evt_` and 24 base62 characters; stable and unique"),
    occurredAt: isoDateTime,
    owner: object({ required: { type: oneOf("user", "organization"), id: string } }).describe(
      "Whose key it is",
    ),
    keyId: string,
    actor: either(
      object({ required: { type: oneOf("user"), id: string } }),
      object({ required: { type: oneOf("operator") } }),
      object({ required: { type: oneOf("system") } }),
      object({ required: { type: oneOf("secret_scanner"), id: string } }),
    ).describe(
      "Who made the change: a signed-in user, the host's own code (operator), Keyward itself (system: time- and usage-based events), or a secret scanner's signed report (secret_scanner, id github)",
    ),
  };
  const ofType = (type: string, data: BaseRoot) =>
    object({ required: { ...common, type: oneOf(type), data } });
  const empty = object({}).describe("Nothing beyond the event's own fields");
  const period = oneOf("day", "week", "month");
  const rateLimit = object({
    required: { limit: number, window: either(string, number) },
    optional: { algorithm: string },
  });
  const limits = object({
    optional: {
      rateLimit: rateLimit.describe("The per-key rate limit"),
      ownerRateLimit: either(rateLimit, falseValue).describe(
        "The owner's shared allowance this key counts against; false: none",
      ),
      quota: either(object({ required: { limit: number, period } }), falseValue).describe(
        "The owner's quota this key counts against; false: none",
      ),
      credits: object({
        required: { remaining: number },
        optional: { refill: object({ required: { amount: number, period } }) },
      }).describe("Credits as granted"),
    },
  }).describe("The key's per-key limits (an operator's overrides of its tier)");
  const event = either(
    ofType(
      "key.created",
      object({
        required: {
          name: string,
          scopes,
          tier: string,
          expiresAt: either(isoDateTime, nullValue),
          hint: string,
          createdBy: string,
        },
        optional: {
          metadata,
          environment: string.describe("The key's environment, with environments configured"),
          ...eventFields,
        },
      }),
    ),
    ofType(
      "key.rotated",
      object({
        required: { previousHint: string, hint: string },
        optional: {
          previousSecretExpiresAt: isoDateTime.describe(
            "Until when the replaced secret still works, for a rotation with a grace period",
          ),
        },
      }),
    ),
    ofType(
      "key.updated",
      object({
        required: {
          changes: object({
            optional: {
              name: string,
              scopes,
              metadata: either(metadata, nullValue),
              limits: either(limits, nullValue).describe(
                "The key's new per-key limits; null when cleared",
              ),
              ...changedFields,
            },
          }),
        },
      }).describe("The fields the change set that differ from before, with their new values"),
    ),
    ofType("key.disabled", empty),
    ofType("key.enabled", empty),
    ofType("key.revoked", empty),
    ofType(
      "key.expiring",
      object({ required: { expiresAt: isoDateTime } }).describe(
        "The key expires within the configured lead time; written once per key and expiry",
      ),
    ),
    ofType(
      "key.inactive",
      object({
        required: { lastUsedAt: either(isoDateTime, nullValue), disablesAt: isoDateTime },
      }).describe(
        "The key has gone unused long enough to be disabled at disablesAt unless used before (permissions({ disableAfterUnused })); written once per key and last use",
      ),
    ),
    ofType(
      "quota.threshold",
      object({
        required: {
          threshold: oneOf(80, 100),
          limit: number,
          used: number.describe("Requests in the period, counting the one that crossed"),
          period,
          resetsAt: isoDateTime,
        },
      }).describe("The owner's quota for the period reached 80 % or 100 %, by this key's request"),
    ),
    ofType(
      "credits.exhausted",
      object({ required: { refillsAt: either(isoDateTime, nullValue) } }).describe(
        "The key's credits reached 0; refillsAt: when a refill sets them back, or null",
      ),
    ),
    ofType(
      "key.leaked",
      object({
        required: {
          action: oneOf("revoked", "reported", "already_revoked").describe(
            "revoked: this report revoked the key; reported: report-only mode, the key still works; already_revoked: it was revoked before",
          ),
          hint: string.describe("The hint of the secret that leaked"),
          tokenType: string,
          url: either(string, nullValue).describe("Where the scanner found it, as it reported"),
          source: either(string, nullValue).describe(
            "The scanner's source of the find, as it reported",
          ),
        },
      }).describe("A secret scanner found the key's secret in public; once per key and url"),
    ),
    ofType(
      "key.imported",
      object({
        required: {
          name: string,
          scopes,
          tier: string,
          expiresAt: either(isoDateTime, nullValue),
          hint: string,
          createdBy: string,
          createdAt: isoDateTime.describe("When the other system created the key"),
        },
        optional: {
          metadata,
          environment: string.describe("The key's environment, with environments configured"),
        },
      }).describe("The key was imported from another system (imports())"),
    ),
    ofType(
      "key.revealed",
      object({
        required: { hint: string.describe("The hint of the secret shown") },
      }).describe("A user was shown the key's secret again (recoverable keys)"),
    ),
  ).describe(
    `Something that happened to a key: ${types.audited.join(", ")}. Never a secret or a hash. More types will come: ignore those you do not know.`,
  );
  const page = object({
    required: {
      data: listOf(event),
      nextCursor: either(string, nullValue).describe(
        "Pass as `cursor` for the next page; null after the last",
      ),
    },
  }).describe("One page of the key's events, newest first");
  return { event, page, declared: (type: string) => ofType(type, anyObject) };
}

/**
 * The document's `Event` and `EventPage`: the kernel's event types, then one variant per type a
 * listed feature writes to the audit log, its `data` the JSON Schema the feature declared.
 */
export function eventJsonSchemas(
  fields: readonly KeyField[],
  types: EventTypes,
): { event: JsonSchema; page: JsonSchema } {
  const { event, page, declared } = eventTypesSchema(fields, types);
  const toJson = (node: BaseRoot) => node.toJsonSchema({ dialect: null }) as JsonSchema;
  const variants = types.declared
    .filter((declaration) => declaration.audit)
    .map((declaration) => {
      const variant = toJson(declared(declaration.type));
      const properties = variant.properties as Record<string, JsonSchema>;
      const data = { ...declaration.data, description: declaration.description };
      return { ...variant, properties: { ...properties, data } };
    });
  const kernelEvent = toJson(event);
  const eventJson =
    variants.length === 0
      ? kernelEvent
      : { ...kernelEvent, anyOf: [...(kernelEvent.anyOf as JsonSchema[]), ...variants] };
  const pageJson = toJson(page);
  const pageProperties = pageJson.properties as Record<string, JsonSchema>;
  return {
    event: eventJson,
    page: {
      ...pageJson,
      properties: { ...pageProperties, data: { ...pageProperties.data, items: eventJson } },
    },
  };
}
