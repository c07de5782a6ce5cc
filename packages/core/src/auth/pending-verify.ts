/**
 * Verification without a promise where none is needed. `keyward.verify` always returns a promise;
 * inside Keyward, and for adapters through `verifyPending`, a request whose key and rate limit the
 * store holds in this process (the memory store, a cached key) is decided synchronously. In an HTTP
 * server each promise hop between the framework's own work costs about a microsecond (measured in
 * docs/benchmarks.md, "HTTP"), so a guard that can go on at once does.
 */
import type { VerifyOptions, VerifyResult } from "./principal.js";

/** A value now, or a promise of it. */
export type Pending<T> = T | Promise<T>;

export function isPromise<T>(value: Pending<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

/** The method, hidden from enumeration, by which a Keyward instance answers `verifyPending`. */
export const pendingVerify: unique symbol = Symbol.for("@keyward/core:verifyPending");

export type PendingVerify = (
  authorization: string | null | undefined,
  options?: VerifyOptions,
) => Pending<VerifyResult>;

/**
 * `keyward.verify(authorization, options)`, except that a decision taken without I/O comes back as
 * the result itself rather than a promise of it. For adapters: a guard checks `isPromise` and goes
 * on at once when it can. A Keyward-shaped object without the method (a test double, a wrapper)
 * falls back to `verify`.
 *
 * @example
 * const decided = verifyPending(keyward, req.headers.authorization, { scopes, route, clientIp });
 * if (isPromise(decided)) decided.then(finish, next);
 * else finish(decided);
 */
export function verifyPending(
  keyward: {
    verify(
      authorization: string | null | undefined,
      options?: VerifyOptions,
    ): Promise<VerifyResult>;
  },
  authorization: string | null | undefined,
  options?: VerifyOptions,
): Pending<VerifyResult> {
  const pending = (keyward as { [pendingVerify]?: PendingVerify })[pendingVerify];
  return pending ? pending(authorization, options) : keyward.verify(authorization, options);
}
