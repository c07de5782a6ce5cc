/**
 * Access tokens from the host's own authorization server, for a protected resource that takes
 * them beside API keys and exchanged tokens: a JWT whose `iss` is a listed server that names its
 * `jwksUrl`, its signature checked against that JWKS (fetched and cached by `jose`), its `aud` the
 * resource and its `scope` (or `scp`) holding what the route needs. Such a token stands for the
 * user in its `sub`, as a session does; Keyward does not rate-limit it (its server decides how
 * long it lives and what it may do).
 */
import {
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  type JWTPayload,
  jwtVerify,
} from "jose";
import type { VerifyResult } from "../../auth/principal.js";
import { KeywardError } from "../../errors/keyward-error.js";
import { type ScopeRequirement, scopesNamedBy } from "../../scopes/scope-requirement.js";
import { sameAudience } from "./audience.js";
import { tokenType } from "./token-claims.js";

/** An authorization server: its issuer, and where its keys are when its tokens are taken here. */
export type AuthorizationServer = string | { issuer: string; jwksUrl: string };

export interface AccessTokenVerifier {
  /** The server that issued `token`, when it is a JWT of one whose tokens are taken here. */
  issuerOf(token: string): string | undefined;
  verify(
    token: string,
    issuer: string,
    required: ScopeRequirement | undefined,
  ): Promise<VerifyResult>;
}

const algorithms = ["RS256", "PS256", "ES256", "ES384", "EdDSA"];
// Access tokens are not rate-limited here: an admitted one reports no limit.
const unlimited = { allowed: true, limit: 0, remaining: 0, reset: 0, retryAfter: 0 };

export function accessTokenVerifier(
  servers: readonly AuthorizationServer[],
  resource: string,
): AccessTokenVerifier {
  const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
  for (const server of servers) {
    if (typeof server === "object")
      keySets.set(server.issuer, createRemoteJWKSet(new URL(server.jwksUrl)));
  }
  const refuse = (code: "invalid_token" | "insufficient_scope", detail: string): VerifyResult => {
    const error = new KeywardError(code, detail);
    return { ok: false, error, headers: { ...error.headers } };
  };
  return {
    issuerOf(token) {
      if (keySets.size === 0 || token.split(".").length !== 3) return undefined;
      try {
        if (decodeProtectedHeader(token).typ === tokenType) return undefined;
        const { iss } = decodeJwt(token);
        return typeof iss === "string" && keySets.has(iss) ? iss : undefined;
      } catch {
        return undefined;
      }
    },
    async verify(token, issuer, required) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keySets.get(issuer)!, { issuer, algorithms }));
      } catch {
        return refuse("invalid_token", "Invalid or expired access token");
      }
      const audiences = typeof payload.aud === "string" ? [payload.aud] : (payload.aud ?? []);
      if (!audiences.some((audience) => sameAudience(audience, resource))) {
        return refuse("invalid_token", "This access token is for another resource");
      }
      if (typeof payload.sub !== "string" || payload.sub === "") {
        return refuse("invalid_token", "This access token names no subject (`sub`)");
      }
      const granted = grantedScopes(payload);
      const missing = required === undefined ? [] : unmet(required, granted);
      if (missing.length > 0) {
        return refuse(
          "insufficient_scope",
          `Access token lacks the required scope: ${missing.join(", ")}`,
        );
      }
      return {
        ok: true,
        principal: {
          kind: "user",
          userId: payload.sub,
          tier: typeof payload.tier === "string" ? payload.tier : "",
          claims: { ...payload, sub: payload.sub },
        },
        rateLimit: unlimited,
        headers: {},
      };
    },
  };
}

function grantedScopes(payload: JWTPayload): readonly string[] {
  if (typeof payload.scope === "string") return payload.scope.split(" ").filter(Boolean);
  if (Array.isArray(payload.scp)) return payload.scp.filter((scope) => typeof scope === "string");
  return [];
}

function unmet(required: ScopeRequirement, granted: readonly string[]): readonly string[] {
  const named = scopesNamedBy(required);
  if (!Array.isArray(required) && "anyOf" in required) {
    return named.some((scope) => granted.includes(scope)) ? [] : named;
  }
  return named.filter((scope) => !granted.includes(scope));
}
