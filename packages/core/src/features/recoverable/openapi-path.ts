import type { PathBuilder } from "../../feature-interface/openapi-contribution.js";

const errorBody = (codes: readonly string[]) => ({
  type: "object",
  required: ["detail", "code"],
  properties: { detail: { type: "string" }, code: { enum: [...codes] } },
});

/**
 * `POST {basePath}/{key_id}/reveal`, with `recoverable()` listed. Its 403 and 409 carry codes only
 * this endpoint answers, so it describes them itself; the rest are the kernel's shared answers.
 */
export const revealPath: PathBuilder = {
  path: "/{key_id}/reveal",
  method: "post",
  build: () => ({
    operationId: "revealKey",
    summary: "Show a key's secret again",
    description:
      "The key's current secret, kept sealed since it was issued (recoverable keys, docs/security.md), for a user who may manage the key and whose session was signed in recently enough. Every reveal writes a `key.revealed` event. Never cached.",
    tags: ["API keys"],
    security: [{ userJwt: [] }],
    parameters: [{ $ref: "#/components/parameters/KeyId" }],
    responses: {
      "200": {
        description: "The secret",
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["id", "hint", "key"],
              properties: {
                id: { type: "string" },
                hint: { type: "string" },
                key: { type: "string" },
              },
            },
          },
        },
      },
      "401": { $ref: "#/components/responses/Unauthorized" },
      "403": {
        description:
          "A session signed in longer ago than allowed or dated in the future (`reauthentication_required`: sign in again), another owner's key, a role that may not manage it or may not grant one of its scopes (`scope_not_grantable`), a key above the account's tier (`tier_not_allowed`), or an API key: reveal asks at least what rotate does",
        content: {
          "application/json": {
            schema: errorBody([
              "reauthentication_required",
              "not_owner",
              "not_member",
              "role_not_permitted",
              "scope_not_grantable",
              "tier_not_allowed",
              "api_key_not_allowed",
              "cross_site_request",
            ]),
          },
        },
      },
      "404": { $ref: "#/components/responses/NotFound" },
      "405": { $ref: "#/components/responses/MethodNotAllowed" },
      "409": {
        description:
          "The key's secret was not kept sealed (issued before recoverable keys, or imported), or cannot be opened with this deployment's key ring",
        content: { "application/json": { schema: errorBody(["secret_not_recoverable"]) } },
      },
      "410": { $ref: "#/components/responses/Gone" },
      "429": { $ref: "#/components/responses/TooManyRequests" },
      "500": { $ref: "#/components/responses/InternalError" },
    },
  }),
};
