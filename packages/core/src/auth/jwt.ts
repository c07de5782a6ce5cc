/**
 * Verifying the user's session JWT with jose (Web Crypto only). jose checks the signature, the key
 * against the token and the claims; Keyward adds what jose leaves to its caller: the pinned
 * algorithms (`jwt/algorithms.ts`), options refused at start-up, the `sub` rule, and 401 details
 * of its own (`jwt/refusal.ts`), with a key set out of reach answered as our outage (500).
 */
import { type JWTPayload, jwtVerify } from "jose";
import { type Clock, systemClock } from "../clock.js";
import { KeywardError } from "../errors/keyward-error.js";
import { ownerIdProblem } from "../validation/owner-id.js";
import { claimChecks } from "./jwt/claim-checks.js";
import type { JwtClaims, JwtOptions, JwtVerifier } from "./jwt/options.js";
import { refusedToken } from "./jwt/refusal.js";
import { resolveKey } from "./jwt/resolve-key.js";

export type { JwtAlgorithm } from "./jwt/algorithms.js";
export type {
  JwtClaims,
  JwtCommonOptions,
  JwtJwksOptions,
  JwtKeyOptions,
  JwtOptions,
  JwtSecretOptions,
  JwtVerifier,
} from "./jwt/options.js";

/**
 * Builds a verifier for session JWTs. Options are checked here, so a misconfiguration throws a
 * `TypeError` at start-up instead of refusing every request later. The verifier throws
 * `KeywardError("invalid_token")` (401) for every token it does not accept; its `detail` never
 * contains the token.
 *
 * @example
 * const verifyJwt = createJwtVerifier({
 *   jwksUrl: "https://auth.example.com/.well-known/jwks.json",
 *   issuer: "https://auth.example.com/",
 *   audience: "my-api",
 * });
 * const claims = await verifyJwt(token); // claims.sub is the user id
 */
export function createJwtVerifier(options: JwtOptions, clock: Clock = systemClock): JwtVerifier {
  const { key, algorithms } = resolveKey(options);
  const checks = { algorithms, ...claimChecks(options) };
  return async (token) => {
    let payload: JWTPayload;
    try {
      // jose would also take bytes; a verifier of header values takes only text.
      if (typeof token !== "string") throw new TypeError("token must be a string");
      const currentDate = new Date(clock.now());
      ({ payload } = await jwtVerify(token, key, { ...checks, currentDate }));
    } catch (cause) {
      throw refusedToken(cause);
    }
    // The subject becomes an owner id that stores index and look up: refused here, before any
    // store sees it, when no store could keep it as it is.
    const problem = ownerIdProblem(payload.sub);
    if (problem) {
      throw new KeywardError(
        "invalid_token",
        problem === "is missing" ? "Token has no subject" : `Token subject ${problem}`,
      );
    }
    return payload as JwtClaims;
  };
}
