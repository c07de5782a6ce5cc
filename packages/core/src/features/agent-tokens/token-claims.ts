/**
 * What an exchanged token says, beyond the registered claims (`iss`, `sub`, `aud`, `exp`, `iat`,
 * `jti`): the key it was exchanged from (`key_id`), which of that key's secrets (`key_gen`), the
 * scopes it carries (`scope`, space-separated as OAuth has it) and the resources it is limited to
 * (`resources`, by kind). Its header's `typ` names it, so `verify` knows it from a session JWT
 * by its shape alone.
 */
import { sha256Digest } from "../../keys/sha256.js";

/** The JOSE header `typ` of every exchanged token. */
export const tokenType = "keyward-agent+jwt";

/** An exchanged token's claims, as read from a token whose signature was checked. */
export interface AgentTokenClaims {
  /** The key owner's id. */
  sub: string;
  aud: string;
  /** Seconds since the epoch. */
  exp: number;
  iat: number;
  jti: string;
  /** The id of the key it was exchanged from. */
  key_id: string;
  /** The marker of the key's secret at the exchange (`secretMarker` of Keyward's hash of it). */
  key_gen: string;
  /**
   * Only for a key `imports()` brought in and not yet rehashed to Keyward's hash at the exchange:
   * the marker of the other system's hash it was stored under, which the key holds until the
   * rehash lands (`key_gen` is the hash it holds after).
   */
  key_gen_imported?: string;
  /** Space-separated. */
  scope: string;
  /** The resources it is limited to, by kind; absent: those of its key. */
  resources?: Readonly<Record<string, readonly string[]>>;
}

const utf8 = new TextEncoder();

/**
 * A marker of the secret a key holds: changes with every rotation. A digest of the secret's stored
 * hash, so a token names which secret it came from without carrying the hash the key is looked up
 * by (whoever holds the token can read its claims).
 */
export function secretMarker(secretHash: string): string {
  const digest = sha256Digest(utf8.encode(`keyward-agent-token:${secretHash}`)).subarray(0, 12);
  let binary = "";
  for (const byte of digest) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_");
}

/** The claims of a verified payload, or undefined when one is missing or of the wrong type. */
export function readClaims(payload: Record<string, unknown>): AgentTokenClaims | undefined {
  const { sub, aud, exp, iat, jti, key_id, key_gen, key_gen_imported, scope, resources } = payload;
  if (
    typeof sub !== "string" ||
    typeof aud !== "string" ||
    typeof exp !== "number" ||
    typeof iat !== "number" ||
    typeof jti !== "string" ||
    typeof key_id !== "string" ||
    typeof key_gen !== "string" ||
    typeof scope !== "string"
  ) {
    return undefined;
  }
  if (resources !== undefined && !isResourceList(resources)) return undefined;
  if (key_gen_imported !== undefined && typeof key_gen_imported !== "string") return undefined;
  return {
    sub,
    aud,
    exp,
    iat,
    jti,
    key_id,
    key_gen,
    ...(key_gen_imported === undefined ? {} : { key_gen_imported }),
    scope,
    ...(resources ? { resources } : {}),
  };
}

function isResourceList(value: unknown): value is Record<string, readonly string[]> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  return Object.values(value).every(
    (ids) => Array.isArray(ids) && ids.every((id) => typeof id === "string"),
  );
}

/**
 * The header every exchanged token starts with names its `typ` first (`token-issuer.ts` writes it
 * so), and its first whole 3-byte groups encode to the same base64url characters in every token:
 * recognising one is a comparison of its first characters, no decoding, on every request.
 */
export const headerStart = `{"typ":"${tokenType}",`;
const encodedHeaderStart = base64Url(
  headerStart.slice(0, headerStart.length - (headerStart.length % 3)),
);

/** Whether `token` is shaped as an exchanged token: a JWS whose header begins with our `typ`. */
export function looksLikeAgentToken(token: string): boolean {
  return token.startsWith(encodedHeaderStart);
}

function base64Url(text: string): string {
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
