/**
 * Response headers that tell a client where it stands against its rate limit.
 *
 * `X-RateLimit-Reset` is the moment the client should act on: on an admitted request, when the
 * whole allowance is back; on a refusal, when a retry is admitted (the same moment `Retry-After`
 * gives, as an epoch second). A client that sleeps until the reset of a 429 is never refused again
 * for the same reason, whatever the algorithm; the full-restore time of a sliding window (up to two
 * windows ahead) would make it wait far longer than needed.
 *
 * The `X-RateLimit-*` trio (and `Retry-After` on a refusal) is what most clients read today. The
 * IETF fields follow draft-ietf-httpapi-ratelimit-headers-11: `RateLimit-Policy` names the policy
 * with its quota `q` and window `w` in seconds; `RateLimit` gives the available quota `r` and the
 * effective window `t`, the seconds within which the client can use no more than `r`. When allowed,
 * `t` runs to `reset` (by then the whole quota is back); when refused, it is the `Retry-After`
 * value, since the draft says Retry-After should not point earlier than the end of that window.
 */
import type { RateLimitDecision, RateLimitPolicy } from "./types.js";

export interface RateLimitHeaderOptions {
  /**
   * The epoch ms the decision was taken at: a refusal's reset and the IETF `t` are relative to it.
   */
  now: number;
  /** Add the IETF `RateLimit-Policy` and `RateLimit` fields. */
  ietf?: boolean;
  /** The policy's identifier in the IETF fields; default `"default"`. A tier name fits. */
  policyName?: string;
}

/**
 * @example
 * const decision = await store.consume(keyId, policy, clock.now());
 * const headers = rateLimitHeaders(decision, policy, { now: clock.now() });
 * // { "X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "59", "X-RateLimit-Reset": "1767225720" }
 * rateLimitHeaders(decision, policy, { ietf: true, now: clock.now(), policyName: "free" });
 * // ... plus "RateLimit-Policy": '"free";q=60;w=60', "RateLimit": '"free";r=59;t=120'
 */
export function rateLimitHeaders(
  decision: RateLimitDecision,
  policy: RateLimitPolicy,
  options: RateLimitHeaderOptions,
): Record<string, string> {
  // At least 1: "Retry-After: 0" invites an immediate retry that would be refused again.
  const retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfter / 1000));
  const resetMs = decision.allowed ? decision.reset : options.now + retryAfterSeconds * 1000;
  const headers: Record<string, string> = {
    "X-RateLimit-Limit": String(decision.limit),
    "X-RateLimit-Remaining": String(decision.remaining),
    // Rounded up: a client that waits until this second must find what the header promises.
    "X-RateLimit-Reset": String(Math.ceil(resetMs / 1000)),
  };
  if (!decision.allowed) headers["Retry-After"] = String(retryAfterSeconds);
  if (options.ietf) {
    const name = structuredString(options.policyName ?? "default");
    // `w` must be a whole, non-zero number of seconds.
    const windowSeconds = Math.max(1, Math.ceil(policy.windowMs / 1000));
    const effectiveSeconds = decision.allowed
      ? Math.max(0, Math.ceil((decision.reset - options.now) / 1000))
      : retryAfterSeconds;
    headers["RateLimit-Policy"] = `${name};q=${policy.limit};w=${windowSeconds}`;
    headers.RateLimit = `${name};r=${decision.remaining};t=${effectiveSeconds}`;
  }
  return headers;
}

/** A Structured Field sf-string (RFC 9651 §3.3.3): printable ASCII, `"` and `\` escaped. */
function structuredString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) {
    throw new TypeError(
      `Invalid rate-limit policy name ${JSON.stringify(value)}: only printable ASCII is allowed`,
    );
  }
  return `"${value.replace(/[\\"]/g, "\\$&")}"`;
}
