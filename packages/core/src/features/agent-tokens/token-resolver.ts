/**
 * `verify`'s resolver for exchanged tokens (the phase "resolve"): a token whose header names it
 * one, its signature checked once against the signing key ring and then remembered until it
 * expires, resolves to the key it was exchanged from, narrowed to the token's scopes. The runner
 * then admits that key as any other: revoked, expired or disabled refuse the token at once (the
 * key cache's invalidation reaches every instance), the key's own checks and limits apply, and the
 * use is counted on it.
 *
 * The key is found through the kernel's key cache, by the hash of the secret the token was
 * exchanged with. The token carries only a marker of that secret (`key_gen`), so the first token
 * of a key's secret an instance meets costs a read by the key's id (and the cache's own lookup,
 * which it warms); every later one is answered from the cache without a store round trip. A rotation changes the key's secret, so its tokens
 * are refused from then on. A key `imports()` brought in is stored under the other system's hash
 * until its rehash to Keyward's lands: its tokens name that hash too (`key_gen_imported`) and are
 * admitted under it, at the cost of a read by id per request, until then.
 */
import "./verify-audience.js";
import { errors as joseErrors, jwtVerify } from "jose";
import type { KeyResolver, ResolvedKey, ResolveKit } from "../../auth/key-resolvers.js";
import type { Pending } from "../../auth/pending-verify.js";
import type { VerifyOptions, VerifyResult } from "../../auth/principal.js";
import type { Clock } from "../../clock.js";
import { KeywardError } from "../../errors/keyward-error.js";
import type { StoredKey } from "../../storage/key-store.js";
import { sameAudience } from "./audience.js";
import { remembered } from "./remembered-tokens.js";
import type { SigningKeyRing } from "./signing-key-ring.js";
import {
  type AgentTokenClaims,
  looksLikeAgentToken,
  readClaims,
  secretMarker,
  tokenType,
} from "./token-claims.js";

export interface TokenResolverParts {
  ring: SigningKeyRing;
  issuer: string;
  clock: Clock;
  /** The stored key by id, from the store (set once the feature is installed). */
  findById(id: string): Promise<StoredKey | null>;
}

/** A token whose signature was checked, and the key it was last narrowed for. */
interface VerifiedToken {
  /** The whole token: the entry is found by its signature, and must be this token. */
  token: string;
  claims: AgentTokenClaims;
  scopes: readonly string[];
  narrowedFrom?: StoredKey;
  narrowed?: StoredKey;
}

const maxRemembered = 10_000;
/** The characters a remembered token is found by: the end of its signature (256 bits of it). */
const signatureChars = 43;
/** How long the hash behind a secret marker is remembered once read; it never changes. */
const markerLifetimeMs = 60 * 60 * 1000;

export function agentTokenResolver(parts: () => TokenResolverParts): KeyResolver {
  // Found by the token's last characters (its signature's), not the whole token: hashing a few
  // hundred characters on every request cost more than the rest of the token's path.
  const verified = remembered<VerifiedToken>(maxRemembered);
  const hashOfMarker = remembered<string>(maxRemembered);

  const refuse = (code: "invalid_token" | "resource_not_allowed", detail: string): VerifyResult => {
    const error = new KeywardError(code, detail);
    return { ok: false, error, headers: { ...error.headers } };
  };

  /** The claims of a token whose signature and lifetime hold, or the refusal. */
  const checkSignature = async (
    token: string,
    now: number,
  ): Promise<VerifiedToken | VerifyResult> => {
    const { ring, issuer } = parts();
    try {
      const { payload } = await jwtVerify(
        token,
        async (header) => {
          const verifier = header.kid === undefined ? undefined : await ring.verifier(header.kid);
          if (verifier === undefined || verifier.alg !== header.alg) {
            throw new Error("not signed by a key of the ring");
          }
          return verifier.key;
        },
        { typ: tokenType, issuer, algorithms: ["ES256", "EdDSA"], currentDate: new Date(now) },
      );
      const claims = readClaims(payload);
      if (claims === undefined) return refuse("invalid_token", "Invalid token");
      return { token, claims, scopes: claims.scope === "" ? [] : claims.scope.split(" ") };
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired)
        return refuse("invalid_token", "Token has expired");
      return refuse("invalid_token", "Invalid token");
    }
  };

  /** The key a verified token stands for, narrowed to its scopes; or the refusal. */
  const resolveVerified = (
    entry: VerifiedToken,
    options: VerifyOptions,
    kit: ResolveKit,
  ): Pending<ResolvedKey | VerifyResult> => {
    const { claims } = entry;
    if (options.audience === undefined) {
      return refuse(
        "invalid_token",
        "This route accepts no exchanged tokens (it declares no audience)",
      );
    }
    if (!sameAudience(claims.aud, options.audience)) {
      return refuse("invalid_token", "This token is for another audience");
    }
    const outside = resourceOutside(claims, options.resource);
    if (outside !== undefined) {
      return refuse("resource_not_allowed", `This token is not for this ${outside}`);
    }
    const known = hashOfMarker.get(claims.key_gen, parts().clock.now());
    if (known !== undefined) return parentByHash(entry, known, options, kit);
    return parts()
      .findById(claims.key_id)
      .then((key) => {
        if (key === null) return parentOf(entry, null, "");
        const marker = secretMarker(key.secretHash);
        if (marker !== claims.key_gen) {
          // An imported key not yet rehashed: still under the other system's hash, read by id on
          // each request (not remembered) until the rehash, which `key_gen` names, lands.
          if (claims.key_gen_imported === marker) {
            return parentByHash(entry, key.secretHash, options, kit);
          }
          return parentOf(entry, null, "");
        }
        hashOfMarker.set(claims.key_gen, key.secretHash, parts().clock.now() + markerLifetimeMs);
        // Through the key cache from now on: this lookup warms it, and its invalidation
        // (a revocation, a rotation on any instance) is what the next request meets.
        return parentByHash(entry, key.secretHash, options, kit);
      });
  };

  const parentByHash = (
    entry: VerifiedToken,
    hash: string,
    options: VerifyOptions,
    kit: ResolveKit,
  ): Pending<ResolvedKey | VerifyResult> => {
    const found = kit.find(hash, options, false);
    return found instanceof Promise
      ? found.then((key) => parentOf(entry, key, hash))
      : parentOf(entry, found, hash);
  };

  /** The parent key, still holding the secret the token came from, narrowed to the token. */
  const parentOf = (
    entry: VerifiedToken,
    key: StoredKey | null | VerifyResult,
    hash: string,
  ): ResolvedKey | VerifyResult => {
    if (key !== null && "ok" in key) return key;
    if (key === null || key.id !== entry.claims.key_id || key.secretHash !== hash) {
      return refuse(
        "invalid_token",
        "The key this token was exchanged from was rotated or deleted; exchange its new secret",
      );
    }
    // Once per version of the key (a change makes a new record): the token's scopes that the key
    // still holds, so narrowing the key narrows its tokens.
    if (entry.narrowedFrom !== key) {
      entry.narrowed = {
        ...key,
        scopes: entry.scopes.filter((scope) => key.scopes.includes(scope)),
      };
      entry.narrowedFrom = key;
    }
    return { key: entry.narrowed!, hash };
  };

  return {
    name: "agent-tokens",
    accepts: (token, keyShaped) => !keyShaped && looksLikeAgentToken(token),
    resolve(token, options, kit) {
      const now = parts().clock.now();
      const id = token.slice(-signatureChars);
      const known = verified.get(id, now);
      if (known !== undefined && known.token === token) return resolveVerified(known, options, kit);
      return checkSignature(token, now).then((checked) => {
        if ("ok" in checked) return checked;
        verified.set(id, checked, checked.claims.exp * 1000);
        return resolveVerified(checked, options, kit);
      });
    },
  };
}

/** The first resource kind the request names that the token's resources leave out. */
function resourceOutside(
  claims: AgentTokenClaims,
  resource: Readonly<Record<string, string>> | undefined,
): string | undefined {
  if (claims.resources === undefined || resource === undefined) return undefined;
  for (const [kind, id] of Object.entries(resource)) {
    const allowed = claims.resources[kind];
    if (allowed !== undefined && !allowed.includes(id)) return kind;
  }
  return undefined;
}
