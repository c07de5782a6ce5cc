/**
 * How `verify`'s steps go on after a value that may be a promise: at once when it is not (the
 * memory store, a cached key: no promise spent), else once it settles. A rejection, or a step that
 * throws after the promise, becomes `verify`'s failure, so `verify` never rejects.
 */
import { isPromise, type Pending } from "./pending-verify.js";
import type { VerifyResult } from "./principal.js";

export type ContinueWith = <T>(
  value: Pending<T>,
  next: (settled: T) => Pending<VerifyResult>,
) => Pending<VerifyResult>;

/** `continueWith(value, next)`: `next(value)` now, or once `value` settles. */
export function continuation(toFailure: (error: unknown) => VerifyResult): ContinueWith {
  return (value, next) => {
    if (!isPromise(value)) return next(value);
    return value.then((settled) => {
      try {
        return next(settled);
      } catch (error) {
        return toFailure(error);
      }
    }, toFailure);
  };
}
