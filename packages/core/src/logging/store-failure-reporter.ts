/**
 * How a store reports what fails in the background (a dropped connection, an invalidation it could
 * not publish, usage it could not write) when no request is there to answer with a 500. A store is
 * built before the Keyward that uses it, so until `createKeyward` attaches its logger the store
 * writes to `console.warn`; from then on its failures go where every other Keyward failure goes
 * (the configured `logger`, repeat-filtered, and the `onError` hook). An `onError` given to the
 * store itself always wins: the host asked for it by name.
 */

/** What `createKeyward` hands a store: a failure, described, and its cause. */
export type StoreFailureReport = (message: string, cause: unknown) => void;

/** Implemented by a store (or a part of one) that reports background failures. */
export interface ReportsStoreFailures {
  /**
   * Called by `createKeyward` with its own failure reporter. Stores use it instead of
   * `console.warn` from then on, unless the host gave the store an `onError`.
   */
  attachLogger?(report: StoreFailureReport): void;
}

export interface StoreFailureReporter extends Required<ReportsStoreFailures> {
  /** Reports one failure: to the store's `onError`, the attached logger, or `console.warn`. */
  readonly report: (error: unknown) => void;
}

/**
 * @param message says what failed, in the words a log reader needs ("a Redis call failed").
 * @param onError the store's own hook, when the host passed one; it then receives every failure.
 *
 * @example
 * const failures = storeFailureReporter("a Redis call failed", options.onError);
 * client.on("error", failures.report);
 * return { rateLimits, usage, attachLogger: failures.attachLogger, close };
 */
export function storeFailureReporter(
  message: string,
  onError?: (error: unknown) => void,
): StoreFailureReporter {
  let attached: StoreFailureReport | undefined;
  return {
    report: (error) => {
      if (onError) onError(error);
      else if (attached) attached(message, error);
      else console.warn(`keyward: ${message}`, error);
    },
    attachLogger: (report) => {
      attached = report;
    },
  };
}
