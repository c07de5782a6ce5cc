/**
 * A feature written only against Keyward's feature interface (docs/features.md), as the proof that
 * one needs nothing else: a key's daily usage as CSV, `GET {basePath}/{key_id}/usage.csv`, for
 * whoever may read the key's usage (its owner, an organization's reader), to open in a spreadsheet
 * beside an invoice. It adds an endpoint on keys, answered after the kernel's session checks, and
 * its OpenAPI path; it imports nothing but `@keyward/core`'s public types.
 *
 * @example
 * createKeyward({ store, scopes, tiers, jwt, features: [usageExport()] });
 */
import type { FeatureEndpointHandler, KeywardFeature, PathBuilder } from "@keyward/core";
import { usageCsv } from "./usage-csv.js";

const path = "/{key_id}/usage.csv";

/** Answers the signed-in caller: the kernel checked the session; `forCaller` checks the key. */
const exportUsage: FeatureEndpointHandler = async ({ user, keyId, keys, headers }) => {
  // 404 for an unknown key, 403 for someone else's: the usage endpoint's own checks.
  const usage = await keys.forCaller.usage(user, keyId);
  return new Response(usageCsv(usage.daily), {
    status: 200,
    headers: {
      ...headers,
      "content-type": "text/csv; charset=utf-8",
      // The id was checked above: a key id's characters are safe in a header.
      "content-disposition": `attachment; filename="${usage.keyId}-usage.csv"`,
      "cache-control": "no-store",
    },
  });
};

const exportUsagePath: PathBuilder = {
  path,
  method: "get",
  build: () => ({
    operationId: "exportKeyUsage",
    summary: "A key's daily usage as CSV",
    description:
      "One row per day with requests (`date,requests`), oldest first, as the usage endpoint's `daily`. Who may read the key's usage may export it.",
    tags: ["API keys"],
    security: [{ userJwt: [] }],
    parameters: [{ $ref: "#/components/parameters/KeyId" }],
    responses: {
      "200": {
        description: "The CSV, with a header row",
        content: { "text/csv": { schema: { type: "string" } } },
      },
      "401": { $ref: "#/components/responses/Unauthorized" },
      "403": { $ref: "#/components/responses/Forbidden" },
      "404": { $ref: "#/components/responses/NotFound" },
    },
  }),
};

export function usageExport(): KeywardFeature<"usageExport"> {
  return {
    name: "usageExport",
    install: () => ({
      endpoints: [{ path, method: "GET", handle: exportUsage }],
      openapi: [exportUsagePath],
    }),
  };
}
