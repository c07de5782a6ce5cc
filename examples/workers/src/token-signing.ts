/**
 * The keys the Worker's `agentTokens()` signs exchanged tokens with. A Worker builds Keyward per
 * request, and `agentTokens()` without `signingKeys` makes a key when its instance first needs one:
 * every request would sign with a key of its own, and no token would pass the next request. So the
 * ring comes from the `KEYWARD_TOKEN_SIGNING_KEY` binding (a secret: a private JWK, as JSON; a PEM
 * needs `node:crypto`, which this Worker does without), the same in every isolate and location, or,
 * unset, from one key made per isolate on its first request and kept for its life. That key's
 * tokens pass only in the isolate that issued them, and its `kid` is the isolate's own, so another
 * isolate refuses them (401) rather than mistaking them: right for `wrangler dev`, not for a
 * deployment.
 */
import type { SigningKeysConfig } from "@keyward/core/agent-tokens";

let isolateKeys: Promise<SigningKeysConfig> | undefined;

/** The configured ring, or this isolate's own key (made once, on first use). */
export function tokenSigningKeys(
  configured: SigningKeysConfig | undefined,
): Promise<SigningKeysConfig> {
  if (configured !== undefined) return Promise.resolve(configured);
  isolateKeys ??= isolateSigningKeys();
  return isolateKeys;
}

/**
 * An ES256 key made with WebCrypto, as a private JWK. Made during a request, not at module load:
 * Workers refuse random values in the global scope.
 */
async function isolateSigningKeys(): Promise<SigningKeysConfig> {
  console.warn(
    "keyward: KEYWARD_TOKEN_SIGNING_KEY is not set, so this isolate signs exchanged tokens with a " +
      "key of its own: they pass in this isolate only; set the secret (a private JWK) before deploying",
  );
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const { kty, crv, x, y, d } = (await crypto.subtle.exportKey(
    "jwk",
    pair.privateKey,
  )) as JsonWebKey;
  const id = `isolate-${crypto.randomUUID().slice(0, 8)}`;
  return { current: id, keys: { [id]: { kty, crv, x, y, d } } };
}
