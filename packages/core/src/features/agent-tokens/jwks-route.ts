/**
 * `GET {basePath}/jwks.json`: the public keys exchanged tokens are verified with (RFC 7517), every
 * key of the ring, for any resource server that checks tokens itself (`jose`'s
 * `createRemoteJWKSet`). Cacheable for `maxAgeSeconds`: a key listed next must be published that
 * long before it signs, so no verifier meets a token signed by a key it has not fetched.
 */
import { KeywardError } from "../../errors/keyward-error.js";
import type { SigningKeyRing } from "./signing-key-ring.js";

export const jwksSubpath = "/jwks.json";

export function jwksRoute(
  ring: SigningKeyRing,
  maxAgeSeconds: number,
): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method === "OPTIONS") {
      return new Response(null, { status: 204, headers: { Allow: "GET, HEAD, OPTIONS" } });
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      throw new KeywardError("method_not_allowed", "Method Not Allowed", {
        headers: { Allow: "GET, HEAD" },
      });
    }
    const body = JSON.stringify({ keys: await ring.published() });
    return new Response(request.method === "HEAD" ? null : body, {
      status: 200,
      headers: {
        "content-type": "application/jwk-set+json",
        "cache-control": `public, max-age=${maxAgeSeconds}`,
      },
    });
  };
}
