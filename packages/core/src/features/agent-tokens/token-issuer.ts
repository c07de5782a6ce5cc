/**
 * Signs exchanged tokens: the registered claims (`iss`, `sub` the key's owner, `aud`, `iat`, `exp`,
 * a random `jti`) and the feature's own (`token-claims.ts`), with the ring's current key.
 */
import { SignJWT } from "jose";
import type { Clock } from "../../clock.js";
import type { StoredKey } from "../../storage/key-store.js";
import type { SigningKeyRing } from "./signing-key-ring.js";
import { secretMarker, tokenType } from "./token-claims.js";

export interface TokenGrant {
  audience: string;
  scopes: readonly string[];
  resources?: Readonly<Record<string, readonly string[]>> | undefined;
  ttlSeconds: number;
}

/** The secret the key was exchanged with, as its hashes name it. */
export interface ExchangedSecret {
  /** Keyward's hash of it: the key's `secretHash`, or what it will be once an import's rehash lands. */
  hash: string;
  /** The other system's hash the key is stored under until then (`imports()`), when it is. */
  importedHash?: string | undefined;
}

export interface TokenIssuer {
  issue(
    key: StoredKey,
    grant: TokenGrant,
    secret: ExchangedSecret,
  ): Promise<{ token: string; expiresAt: number; jti: string }>;
}

export function tokenIssuer(ring: SigningKeyRing, issuer: string, clock: Clock): TokenIssuer {
  return {
    async issue(key, grant, secret) {
      const { kid, alg, key: signingKey } = await ring.signer();
      const issuedAt = Math.floor(clock.now() / 1000);
      const expiresAt = issuedAt + grant.ttlSeconds;
      const jti = crypto.randomUUID();
      const token = await new SignJWT({
        key_id: key.id,
        key_gen: secretMarker(secret.hash),
        ...(secret.importedHash === undefined
          ? {}
          : { key_gen_imported: secretMarker(secret.importedHash) }),
        owner_type: key.ownerType,
        scope: grant.scopes.join(" "),
        ...(grant.resources === undefined ? {} : { resources: grant.resources }),
      })
        .setProtectedHeader({ typ: tokenType, alg, kid })
        .setIssuer(issuer)
        .setSubject(key.ownerId)
        .setAudience(grant.audience)
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .setJti(jti)
        .sign(signingKey);
      return { token, expiresAt: expiresAt * 1000, jti };
    },
  };
}
