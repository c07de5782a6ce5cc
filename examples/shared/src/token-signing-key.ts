/**
 * `KEYWARD_TOKEN_SIGNING_KEY`: the private key the demo's `agentTokens()` signs exchanged tokens
 * with, so that several instances (behind one load balancer, on one database) verify each other's
 * tokens and publish the same JWKS. Either a private JWK as JSON (ES256: EC P-256, EdDSA: OKP
 * Ed25519; its `kid`, if any, names it, else `demo`) or a PKCS#8 PEM of such a key (converted with
 * `node:crypto`, so on Node, Bun and Deno; give a JWK on Workers). Unset: each instance makes its
 * own key at start, and its tokens are good on that instance only, until it stops.
 *
 * Make one: `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256` (a PEM), or the JWK
 * one-liner in docs/agents.md.
 */
import type { SigningKeysConfig } from "@keyward/core/agent-tokens";

const variable = "KEYWARD_TOKEN_SIGNING_KEY";
const expected = `${variable} must be a private key, EC P-256 (ES256) or Ed25519 (EdDSA), as a JWK (JSON) or a PKCS#8 PEM; make one with \`openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256\``;
const idPattern = /^[A-Za-z0-9_.-]{1,64}$/;

type PrivateJwk = Record<string, unknown> & { kty: string; crv: string; d: string; x: string };

/** The ring `agentTokens({ signingKeys })` takes, with the one key; undefined when unset. */
export function parseTokenSigningKey(value: string | undefined): SigningKeysConfig | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  const jwk = text.startsWith("-----BEGIN") ? fromPem(text) : fromJson(text);
  if (!isSigningJwk(jwk)) throw new TypeError(expected);
  const id = typeof jwk.kid === "string" && idPattern.test(jwk.kid) ? jwk.kid : "demo";
  const { kty, crv, x, y, d } = jwk;
  const key = y === undefined ? { kty, crv, x, d } : { kty, crv, x, y: y as string, d };
  return { current: id, keys: { [id]: key } };
}

function fromJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new TypeError(expected);
  }
}

/** A PKCS#8 PEM as a JWK, through `node:crypto` (present on Node, Bun and Deno). */
function fromPem(text: string): unknown {
  const getBuiltinModule = (
    globalThis as {
      process?: { getBuiltinModule?: (id: string) => typeof import("node:crypto") | undefined };
    }
  ).process?.getBuiltinModule;
  const nodeCrypto = getBuiltinModule?.("node:crypto");
  if (nodeCrypto === undefined) {
    throw new TypeError(`${variable}: a PEM needs node:crypto here; give the key as a JWK`);
  }
  try {
    const key = nodeCrypto.createPrivateKey({ key: text, format: "pem" });
    return key.export({ format: "jwk" });
  } catch {
    // The message names the format, never the value: it is a private key.
    throw new TypeError(expected);
  }
}

function isSigningJwk(jwk: unknown): jwk is PrivateJwk {
  if (typeof jwk !== "object" || jwk === null) return false;
  const { kty, crv, x, y, d } = jwk as Record<string, unknown>;
  if (typeof d !== "string" || typeof x !== "string") return false;
  if (kty === "EC") return crv === "P-256" && typeof y === "string";
  return kty === "OKP" && crv === "Ed25519";
}
