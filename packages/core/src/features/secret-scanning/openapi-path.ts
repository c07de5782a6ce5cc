import type { PathBuilder } from "../../feature-interface/openapi-contribution.js";

const errorBody = (code: string, detail: Record<string, unknown>) => ({
  type: "object",
  required: ["detail", "code"],
  properties: { detail, code: { const: code } },
});
const sentence = { type: "string" };

/**
 * `POST {basePath}/secret-scanning`, with `secretScanning()` listed: GitHub's secret-scanning partner
 * endpoint. Authenticated by GitHub's signature headers, not by a session or a key, so it
 * describes its own answers instead of the shared ones (its 401 carries no bearer challenge).
 */
export const secretScanningPath: PathBuilder = {
  path: "/secret-scanning",
  method: "post",
  build: (context) => ({
    operationId: "reportLeakedTokens",
    summary: "Secret-scanning report (GitHub partner program)",
    description: `GitHub's signed report of tokens found in public. Tokens with one of this deployment's prefixes (${context.keyPrefixes.join(", ")}) and a valid checksum are looked up; the keys among them are revoked (or, in report-only mode, reported) and a \`key.leaked\` event is written. Each token is labelled in the answer. See docs/leaked-keys.md.`,
    tags: ["API keys"],
    security: [],
    parameters: [
      {
        name: "Github-Public-Key-Identifier",
        in: "header",
        required: true,
        description: "Which of GitHub's published secret-scanning keys signed the body.",
        schema: { type: "string" },
      },
      {
        name: "Github-Public-Key-Signature",
        in: "header",
        required: true,
        description: "Base64 of the ASN.1 DER ECDSA P-256 SHA-256 signature of the raw body.",
        schema: { type: "string" },
      },
    ],
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: {
            type: "array",
            items: {
              type: "object",
              required: ["token", "type"],
              properties: {
                token: { type: "string" },
                type: { type: "string" },
                url: { type: ["string", "null"] },
                source: { type: ["string", "null"] },
              },
            },
          },
        },
      },
    },
    responses: {
      "200": {
        description: "Each token of the report, in order, labelled",
        content: {
          "application/json": {
            schema: {
              type: "array",
              items: {
                type: "object",
                required: ["token_raw", "token_type", "label"],
                properties: {
                  token_raw: { type: "string" },
                  token_type: { type: "string" },
                  label: { enum: ["true_positive", "false_positive"] },
                },
              },
            },
          },
        },
      },
      "401": {
        description: "A missing, malformed or unverifiable signature",
        content: { "application/json": { schema: errorBody("invalid_signature", sentence) } },
      },
      "405": { $ref: "#/components/responses/MethodNotAllowed" },
      "413": { $ref: "#/components/responses/PayloadTooLarge" },
      "422": { $ref: "#/components/responses/ValidationFailed" },
      "500": { $ref: "#/components/responses/InternalError" },
      "503": {
        description:
          "GitHub's public keys could not be fetched, or every report slot is busy reading a body; GitHub retries later",
        headers: {
          "Retry-After": {
            description: "With `reports_busy`: seconds until a slot is likely free",
            schema: { type: "integer", minimum: 0 },
          },
        },
        content: {
          "application/json": {
            schema: {
              oneOf: [
                errorBody("scanner_keys_unavailable", sentence),
                errorBody("reports_busy", sentence),
              ],
            },
          },
        },
      },
    },
  }),
};
