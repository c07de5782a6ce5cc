/**
 * `@keyward/core/agent-tokens`: keys for agents. Listed, an API key can be exchanged for a
 * short-lived token bound to one audience (`POST {basePath}/tokens`, a JWT signed by the
 * instance's signing keys, published at `GET {basePath}/jwks.json`), with at most the key's scopes
 * and resources; `verify` accepts such a token only on a route that declares its audience (the
 * `audience` option), and refuses it as soon as its key is revoked, disabled, expired or rotated.
 * `protectedResource()` makes a route an OAuth protected resource as MCP's authorization spec asks
 * (RFC 9728 metadata, RFC 6750 challenges). See docs/agents.md.
 *
 * @example
 * import { agentTokens } from "@keyward/core/agent-tokens";
 * createKeyward({ store, scopes, tiers, jwt, features: [agentTokens({
 *   signingKeys: { current: "2026-12", keys: { "2026-12": JSON.parse(process.env.TOKEN_SIGNING_JWK!) } },
 *   maxTtl: "10m",
 * })] });
 */
import "./verify-audience.js";
import type { KeywardFeature } from "../../feature-interface/feature.js";
import { parseDuration } from "../../rate-limit/duration.js";
import { admittedKeys } from "./admitted-keys.js";
import { exchangeRoute, tokensSubpath } from "./exchange-route.js";
import type { IssuedToken } from "./issued-token.js";
import { jwksRoute, jwksSubpath } from "./jwks-route.js";
import { jwksPath, tokensPath } from "./openapi-paths.js";
import { type SigningKeysConfig, signingKeyRing } from "./signing-key-ring.js";
import { recordIssued, tokenIssuedType } from "./token-issued-event.js";
import { tokenIssuer } from "./token-issuer.js";
import { agentTokenResolver, type TokenResolverParts } from "./token-resolver.js";

export type { IssuedToken } from "./issued-token.js";
export {
  type AuthorizationServer,
  type ProtectedResource,
  type ProtectedResourceConfig,
  protectedResource,
} from "./protected-resource.js";
export type { PublishedKey, SigningAlgorithm, SigningKeysConfig } from "./signing-key-ring.js";

export interface AgentTokensConfig {
  /**
   * The keys tokens are signed with (ES256 or EdDSA private JWKs, `current` signing). Every
   * instance verifying the tokens needs the same ring. Default: one key made at start, for a single
   * instance (its tokens die with the process).
   */
  signingKeys?: SigningKeysConfig;
  /** The longest `ttl` an exchange may ask for: ms or "10m"; default and at most 15 minutes. */
  maxTtl?: number | string;
  /** The `ttl` of an exchange that asks for none: default 5 minutes (at most `maxTtl`). */
  defaultTtl?: number | string;
  /** The tokens' `iss`; default "keyward". */
  issuer?: string;
  /** How long the JWKS may be cached, in seconds; default 300. */
  jwksMaxAgeSeconds?: number;
  /**
   * Told of every token issued (never the token: its `jti`, key, audience, scopes, times), after
   * it is signed and recorded as the event `token.issued` (in the audit log when `events()` is
   * listed, on the instance's event bus either way). A throw is reported and changes nothing.
   */
  onIssued?(token: IssuedToken): void;
}

const fifteenMinutes = 15 * 60 * 1000;

/** Throws a `TypeError` naming the field for a malformed `config`. */
export function agentTokens(config: AgentTokensConfig = {}): KeywardFeature<"agentTokens"> {
  if (typeof config !== "object" || config === null) {
    throw new TypeError(
      "agentTokens(config): { signingKeys?, maxTtl?, defaultTtl?, issuer?, jwksMaxAgeSeconds? }",
    );
  }
  const ring = signingKeyRing(config.signingKeys);
  const maxTtlMs = duration("maxTtl", config.maxTtl ?? fifteenMinutes);
  if (maxTtlMs > fifteenMinutes || maxTtlMs < 1000) {
    throw new TypeError("agentTokens({ maxTtl }): between 1 second and 15 minutes");
  }
  const defaultTtlMs = Math.min(
    duration("defaultTtl", config.defaultTtl ?? 5 * 60 * 1000),
    maxTtlMs,
  );
  if (defaultTtlMs < 1000) throw new TypeError("agentTokens({ defaultTtl }): at least 1 second");
  const issuer = config.issuer ?? "keyward";
  if (typeof issuer !== "string" || issuer === "") {
    throw new TypeError("agentTokens({ issuer }): a non-empty string");
  }
  if (config.onIssued !== undefined && typeof config.onIssued !== "function") {
    throw new TypeError("agentTokens({ onIssued }): a function");
  }
  const jwksMaxAge = config.jwksMaxAgeSeconds ?? 300;
  if (!Number.isInteger(jwksMaxAge) || jwksMaxAge < 0) {
    throw new TypeError("agentTokens({ jwksMaxAgeSeconds }): a whole number of seconds ≥ 0");
  }
  // The resolver is listed before the kernel is built; what it reads from the kernel comes at install.
  let parts: TokenResolverParts | undefined;
  const resolver = agentTokenResolver(() => {
    if (parts === undefined) throw new Error("agentTokens: used before the instance was built");
    return parts;
  });
  const admitted = admittedKeys();
  return {
    name: "agentTokens",
    extends: { verify: { resolve: [resolver], check: [admitted.step] } },
    // `token.issued`: in the audit log's type filter, webhooks' `types` and the OpenAPI document.
    eventTypes: [tokenIssuedType],
    install: (kernel) => {
      const { clock, store } = kernel;
      parts = { ring, issuer, clock, findById: (id) => store.keys.findById(id) };
      const issue = tokenIssuer(ring, issuer, clock);
      const maxTtlSeconds = Math.floor(maxTtlMs / 1000);
      return {
        routes: [
          {
            subpath: tokensSubpath,
            handle: exchangeRoute(kernel, issue, {
              maxTtlSeconds,
              admitted,
              defaultTtlSeconds: Math.floor(defaultTtlMs / 1000),
              issued: async (token) => {
                await recordIssued(token, {
                  events: kernel.events,
                  bus: kernel.bus,
                  random: kernel.random,
                });
                try {
                  config.onIssued?.(token);
                } catch (error) {
                  kernel.log.reportFailure("agentTokens: the onIssued hook failed", error);
                }
              },
            }),
          },
          { subpath: jwksSubpath, handle: jwksRoute(ring, jwksMaxAge) },
        ],
        openapi: [tokensPath(maxTtlSeconds), jwksPath],
      };
    },
  };
}

function duration(name: string, value: number | string): number {
  try {
    return parseDuration(value);
  } catch (error) {
    throw new TypeError(`agentTokens({ ${name} }): ${(error as Error).message}`);
  }
}
