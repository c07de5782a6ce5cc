/**
 * `verify`'s phase "around" (`verify-phases.ts`): a feature may wrap the verification function, to watch every
 * verification whichever way it came in (`keyward.verify`, `authenticate`, an adapter's guard, the
 * endpoints' own sessions). `@keyward/otel` wraps it with its observers (`observeVerify`). A wrapper
 * must call the function it is given once per verification and return what it returns: it may
 * watch a decision, never change one.
 *
 * The kernel holds only this type and the fold below; the observer wrapper lives in
 * `observation/observed-verify.ts`, which only a feature that lists it brings into a bundle.
 */
import type { Pending } from "./pending-verify.js";
import type { VerifyOptions, VerifyResult } from "./principal.js";
import type { SessionResolution } from "./verify-user.js";

/** `verify`'s options inside Keyward: the guards' and, from the endpoints, the session's. */
export interface InternalVerifyOptions extends VerifyOptions {
  /**
   * The host's session for this request, asked only when no bearer token was sent (from
   * `authenticate` and the endpoints, which have the request).
   */
  session?: () => SessionResolution;
  /** A key-management call: only a user session may make it. */
  managing?: boolean;
}

/** `verify` as the kernel builds it and the adapters call it. */
export type VerifyFunction = (
  authorization: string | null | undefined,
  options?: InternalVerifyOptions,
) => Pending<VerifyResult>;

/**
 * Wraps `verify`.
 * @param report where the wrapper's own failures go (the instance's repeat-filtered logger)
 */
export type VerifyWrapper = (
  verify: VerifyFunction,
  report: (message: string, cause: unknown) => void,
) => VerifyFunction;

/** `verify` wrapped by each listed wrapper, the first listed outermost; itself with none. */
export function wrapVerify(
  verify: VerifyFunction,
  wrappers: readonly VerifyWrapper[] | undefined,
  report: (message: string, cause: unknown) => void,
): VerifyFunction {
  let wrapped = verify;
  for (let index = (wrappers?.length ?? 0) - 1; index >= 0; index--) {
    wrapped = wrappers![index]!(wrapped, report);
  }
  return wrapped;
}
