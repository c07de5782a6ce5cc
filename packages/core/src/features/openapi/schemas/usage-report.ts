/** `GET {basePath}/{key_id}/usage`'s answer as an arktype schema node (`responses-match.test.ts`). */
import type { InstanceDescription } from "../../../feature-interface/openapi-contribution.js";
import type { JsonSchema } from "../../../feature-interface/openapi-types.js";
import type { KeyField } from "../../../keys/key-field.js";
import { schemaNode } from "../../../validation/schema.js";
import { featureFieldNodes } from "./key-record.js";
import { count, either, isoDateTime, listOf, nullValue, object, oneOf, string } from "./nodes.js";

const period = oneOf("day", "week", "month");

/** @param fields the listed features' key fields: those with a usage schema are in the report */
export const usageReportType = (fields: readonly KeyField[]) =>
  object({
    required: {
      keyId: string,
      totalRequests: count,
      lastUsedAt: either(isoDateTime, nullValue),
      endpoints: listOf(
        object({
          required: {
            method: string,
            route: string.describe("The route template, never the raw path"),
            count,
          },
        }),
      ).describe("Per method and route, most used first"),
      daily: listOf(
        object({
          required: {
            date: schemaNode({ domain: "string", meta: { format: "date" } as never }),
            count,
          },
        }),
      ).describe("Per UTC day, oldest first"),
    },
    optional: {
      ...featureFieldNodes(fields, "usage"),
      quota: object({
        required: { limit: count, remaining: count, period, resetsAt: isoDateTime },
      }).describe("The owner's quota as this key counts against it; present when the tier has one"),
      credits: object({
        required: {
          remaining: count,
          refill: either(object({ required: { amount: count, period } }), nullValue),
          refillsAt: either(isoDateTime, nullValue),
        },
      }).describe("The key's credits; present when the key has them"),
    },
  });

/**
 * The report's JSON Schema with the sections listed features add (`FeatureParts.usage`): optional
 * properties, each described by its feature's JSON Schema.
 */
export function withUsageSections(
  report: JsonSchema,
  sections: InstanceDescription["usageSections"],
): JsonSchema {
  if (sections.length === 0) return report;
  const properties = { ...(report.properties as Record<string, JsonSchema> | undefined) };
  for (const section of sections) properties[section.name] = section.schema;
  return { ...report, properties };
}
