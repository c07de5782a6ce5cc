/**
 * `POST {basePath}/tokens`: an API key (the bearer) exchanged for a short-lived token bound to one
 * audience. The key is verified as on any host route (refused when revoked, expired or disabled;
 * its rate limit charged; the use counted), so an exchange is a use of the key. The token's scopes
 * and resources are at most the key's (403 naming what it lacks), its `ttl` at most the configured
 * maximum (422). A body that is not an acceptable request is refused before the key is charged.
 */
import { readBearer } from "../../auth/bearer.js";
import type { VerifyOptions, VerifyResult } from "../../auth/principal.js";
import { KeywardError } from "../../errors/keyward-error.js";
import type { FeatureKernel } from "../../feature-interface/feature-kernel.js";
import { isMissingBody, readJsonBody } from "../../http/read-json-body.js";
import type { KeyResourceLimits } from "../../keys/key-resources.js";
import type { StoredKey } from "../../storage/key-store.js";
import type { AdmittedKeys } from "./admitted-keys.js";
import { type ExchangeRequest, readExchangeBody } from "./exchange-body.js";
import type { IssuedToken } from "./issued-token.js";
import { looksLikeAgentToken } from "./token-claims.js";
import type { TokenIssuer } from "./token-issuer.js";

export const tokensSubpath = "/tokens";
/** An exchange body is a few hundred bytes. */
const bodyLimit = 16 * 1024;

export interface ExchangeSettings {
  maxTtlSeconds: number;
  defaultTtlSeconds: number;
  /** Hands over the stored key `verify` admitted for the exchange. */
  admitted: AdmittedKeys;
  /**
   * Told of every token issued, after it is signed and before it is handed over: the audit log or
   * the bus, then the feature's `onIssued`. A rejection fails the exchange.
   */
  issued(record: IssuedToken): Promise<void>;
}

export function exchangeRoute(
  kernel: FeatureKernel,
  issuer: TokenIssuer,
  settings: ExchangeSettings,
): (request: Request) => Promise<Response> {
  const { keyModel } = kernel;
  const route = `POST ${kernel.basePath}${tokensSubpath}`;
  return async (request) => {
    // A CORS preflight, answered as the kernel's router answers one: what the route takes.
    if (request.method === "OPTIONS") {
      return new Response(null, { status: 204, headers: { Allow: "POST, OPTIONS" } });
    }
    if (request.method !== "POST") {
      throw new KeywardError("method_not_allowed", "Method Not Allowed", {
        headers: { Allow: "POST" },
      });
    }
    const authorization = request.headers.get("authorization");
    const bearer = readBearer(authorization);
    if (bearer !== null && looksLikeAgentToken(bearer)) {
      throw new KeywardError(
        "invalid_api_key",
        "Exchange an API key: a token cannot be exchanged for another",
      );
    }
    const body = await readJsonBody(request, bodyLimit);
    const wanted = readExchangeBody(
      isMissingBody(body) ? undefined : body,
      keyModel.scopes,
      settings.maxTtlSeconds,
    );
    if (Array.isArray(wanted)) throw new KeywardError("validation_failed", wanted);

    const asked: VerifyOptions = { accept: "api-key", route };
    const watching = settings.admitted.watch(asked);
    let verified: VerifyResult;
    try {
      verified = await kernel.verify(authorization, asked);
    } finally {
      watching.stop();
    }
    if (!verified.ok) return verified.error.toResponse(verified.headers);
    const hash = keyModel.hasher.hash(bearer!);
    const { key, importedHash } = exchangedSecret(watching.admitted(), hash);
    // The key as verified: its scopes capped at the tier's, as verify narrowed them.
    const held = verified.principal.kind === "key" ? verified.principal.scopes : [];
    const granted = grantable(wanted, key, held);
    const ttl = wanted.ttl ?? settings.defaultTtlSeconds;
    const issued = await issuer.issue(
      key,
      { audience: wanted.audience, scopes: granted, resources: wanted.resources, ttlSeconds: ttl },
      { hash, importedHash },
    );
    await settings.issued({
      jti: issued.jti,
      keyId: key.id,
      owner: { type: key.ownerType, id: key.ownerId },
      audience: wanted.audience,
      scopes: granted,
      ...(wanted.resources === undefined ? {} : { resources: wanted.resources }),
      issuedAt: new Date(issued.expiresAt - ttl * 1000).toISOString(),
      expiresAt: new Date(issued.expiresAt).toISOString(),
    });
    return new Response(
      JSON.stringify({
        token: issued.token,
        expiresAt: new Date(issued.expiresAt).toISOString(),
        audience: wanted.audience,
        scopes: granted,
      }),
      {
        status: 200,
        headers: {
          ...verified.headers,
          "content-type": "application/json",
          "cache-control": "no-store",
        },
      },
    );
  };
}

/**
 * The key `verify` admitted the bearer against and, for a key `imports()` brought in that is not
 * yet rehashed to Keyward's hash, the other system's hash it is stored under. Throws 401 for the
 * secret a graceful rotation replaced: its tokens would die with it at once.
 */
function exchangedSecret(
  key: StoredKey | undefined,
  hash: string,
): { key: StoredKey; importedHash?: string } {
  if (key === undefined) throw new Error("agentTokens: verify admitted no stored key");
  if (key.secretHash === hash) return { key };
  // Found under another hash than Keyward's of the bearer: an import's, of the record's one secret.
  // With a replaced secret beside it the bearer may be that one (Keyward's or an import's): refused.
  if (key.previousSecretHash !== null) {
    throw new KeywardError(
      "invalid_api_key",
      "This secret was replaced by a rotation; exchange the key's current secret",
    );
  }
  return { key, importedHash: key.secretHash };
}

/** The scopes the token gets; throws 403 naming what the key cannot hand on. */
function grantable(
  wanted: ExchangeRequest,
  key: StoredKey,
  held: readonly string[],
): readonly string[] {
  const scopes = wanted.scopes ?? held;
  const lacking = scopes.filter((scope) => !held.includes(scope));
  if (lacking.length > 0) {
    throw new KeywardError(
      "scope_not_grantable",
      `The key does not hold ${lacking.join(", ")}; a token carries at most its key's scopes`,
    );
  }
  const limits = resourcesOf(key);
  if (wanted.resources !== undefined && limits != null) {
    for (const [kind, ids] of Object.entries(wanted.resources)) {
      const allowed = limits[kind];
      if (allowed === undefined) continue;
      const outside = ids.filter((id) => !allowed.includes(id));
      if (outside.length > 0) {
        throw new KeywardError(
          "resource_not_allowed",
          `The key is not limited to ${kind} ${outside.slice(0, 5).join(", ")}; a token carries at most its key's resources`,
        );
      }
    }
  }
  return scopes;
}

/** The resources the key is limited to, by kind (`permissions()`'s key field), or none. */
function resourcesOf(key: StoredKey): KeyResourceLimits | null | undefined {
  return key.fields?.resources as KeyResourceLimits | null | undefined;
}
