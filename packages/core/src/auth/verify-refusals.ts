/**
 * How `verify` says no. It never throws: every refusal, and every failure of a store or a step, is
 * a `{ ok: false, error, headers }`, whose headers a guard copies onto its response as they are.
 */
import { internalError, KeywardError } from "../errors/keyward-error.js";
import { rateLimitHeaders } from "../rate-limit/headers.js";
import type { RateLimitDecision, RateLimitPolicy } from "../rate-limit/types.js";
import type { VerifyResult } from "./principal.js";

const noHeaders: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** A refusal with the error's own headers. */
export function failure(
  code: ConstructorParameters<typeof KeywardError>[0],
  detail: string,
): VerifyResult {
  const error = new KeywardError(code, detail);
  return { ok: false, error, headers: headersOf(error) };
}

/**
 * A refusal's headers are the error's own (the `WWW-Authenticate` challenge of a 401), so a guard
 * that copies `result.headers` onto its own response sends them without knowing about them.
 */
export function headersOf(error: KeywardError): Record<string, string> {
  const headers = error.headers as Record<string, string>;
  return Object.keys(headers).length === 0 ? noHeaders : headers;
}

/** 429 from a limit, with the limit's headers. */
export function rateLimited(decision: RateLimitDecision, headers: Record<string, string>) {
  const error = new KeywardError("rate_limited", "Rate limit exceeded", { headers });
  return { ok: false, error, rateLimit: decision, headers } as const;
}

/**
 * A key of another environment than the route takes. 401 rather than 403: the key does not
 * authenticate here at all (as a key of another service would not), and the fix is another key,
 * not another permission.
 */
export function otherEnvironmentKey(actual: string | undefined, wanted: string): VerifyResult {
  return failure(
    "invalid_api_key",
    `API key is for the ${actual} environment; this endpoint takes ${wanted} keys`,
  );
}

/** 429 for a client address out of lookups of unknown keys (`failed-lookup-limiter.ts`). */
export function tooManyFailedLookups(
  decision: RateLimitDecision,
  policy: RateLimitPolicy,
  options: { now: number; ietf: boolean },
): VerifyResult {
  const headers = rateLimitHeaders(decision, policy, {
    now: options.now,
    ietf: options.ietf,
    policyName: "failed-lookups",
  });
  const error = new KeywardError(
    "failed_lookups_limited",
    "Too many requests with unknown API keys from this address; retry after the time in Retry-After",
    { headers },
  );
  return { ok: false, error, headers };
}

/**
 * Anything thrown or rejected on the way, as `verify`'s failure: a `KeywardError` as it is, any
 * other error a 500, reported (a 500 is Keyward's or a store's fault, never the client's).
 */
export function failureOf(
  report: (message: string, cause: unknown) => void,
): (error: unknown) => VerifyResult {
  return (error) => {
    const keywardError = error instanceof KeywardError ? error : internalError(error);
    if (keywardError.status >= 500) {
      report("verifying a request failed (500)", keywardError.cause ?? keywardError);
    }
    return { ok: false, error: keywardError, headers: headersOf(keywardError) };
  };
}
