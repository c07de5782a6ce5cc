/**
 * The OpenAPI paths of `agentTokens()`: the exchange (`POST {basePath}/tokens`, an API key as the
 * bearer) and the published keys (`GET {basePath}/jwks.json`, no credentials).
 */
import type { PathBuilder } from "../../feature-interface/openapi-contribution.js";

const errorBody = (codes: readonly string[]) => ({
  type: "object",
  required: ["detail", "code"],
  properties: { detail: { type: "string" }, code: { enum: [...codes] } },
});
const idList = {
  type: "array",
  items: { type: "string", minLength: 1, maxLength: 256 },
  minItems: 1,
  maxItems: 100,
};

export function tokensPath(maxTtlSeconds: number): PathBuilder {
  return {
    path: "/tokens",
    method: "post",
    build: (context) => ({
      operationId: "exchangeKeyForToken",
      summary: "Exchange an API key for a short-lived token",
      description:
        "A JWT bound to one audience, with at most the key's scopes and resources, living at most `ttl` seconds (docs/agents.md). The exchange is a use of the key: checked, rate-limited and counted as on any route. `verify` accepts the token only on routes that declare its audience, and refuses it once its key is revoked, disabled, expired or rotated.",
      tags: ["API keys"],
      security: [{ apiKey: [] }],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["audience"],
              additionalProperties: false,
              properties: {
                audience: {
                  type: "string",
                  pattern: "^[\\x21-\\x7E]{1,512}$",
                  description: "The resource the token is for: its `aud`",
                },
                scopes: {
                  type: "array",
                  items: { enum: [...context.scopes.names] },
                  description: "Default: the key's",
                },
                resources: {
                  type: "object",
                  additionalProperties: idList,
                  description: "By kind; within the key's own",
                },
                ttl: {
                  type: "integer",
                  minimum: 1,
                  maximum: maxTtlSeconds,
                  description: "Seconds",
                },
              },
            },
          },
        },
      },
      responses: {
        "200": {
          description: "The token",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["token", "expiresAt", "audience", "scopes"],
                properties: {
                  token: { type: "string" },
                  expiresAt: { type: "string", format: "date-time" },
                  audience: { type: "string" },
                  scopes: { type: "array", items: { type: "string" } },
                },
              },
            },
          },
        },
        "400": { $ref: "#/components/responses/BadRequest" },
        "401": { $ref: "#/components/responses/Unauthorized" },
        "403": {
          description:
            "A scope or resource the key does not hold, or a key refused by a check (its IP allowlist)",
          content: {
            "application/json": {
              schema: errorBody(["scope_not_grantable", "resource_not_allowed", "ip_not_allowed"]),
            },
          },
        },
        "405": { $ref: "#/components/responses/MethodNotAllowed" },
        "413": { $ref: "#/components/responses/PayloadTooLarge" },
        "422": { $ref: "#/components/responses/ValidationFailed" },
        "429": { $ref: "#/components/responses/TooManyRequests" },
        "500": { $ref: "#/components/responses/InternalError" },
      },
    }),
  };
}

export const jwksPath: PathBuilder = {
  path: "/jwks.json",
  method: "get",
  build: () => ({
    operationId: "tokenSigningKeys",
    summary: "The keys exchanged tokens are signed with",
    description:
      "A JSON Web Key Set (RFC 7517) of every signing key, the current one first. Cacheable: a key is published before it signs.",
    tags: ["API keys"],
    security: [],
    responses: {
      "200": {
        description: "The key set",
        content: {
          "application/jwk-set+json": {
            schema: {
              type: "object",
              required: ["keys"],
              properties: {
                keys: {
                  type: "array",
                  items: {
                    type: "object",
                    required: ["kty", "kid", "alg", "use"],
                    properties: {
                      kty: { enum: ["EC", "OKP"] },
                      crv: { enum: ["P-256", "Ed25519"] },
                      x: { type: "string" },
                      y: { type: "string" },
                      kid: { type: "string" },
                      alg: { enum: ["ES256", "EdDSA"] },
                      use: { const: "sig" },
                    },
                  },
                },
              },
            },
          },
        },
      },
      "405": { $ref: "#/components/responses/MethodNotAllowed" },
    },
  }),
};
