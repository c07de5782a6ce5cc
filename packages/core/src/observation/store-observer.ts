/**
 * What a store reports about its own calls to its database (Redis, PostgreSQL): each call's
 * operation, duration and outcome, and its circuit breaker opening and closing, so an outage shows
 * as it happens. A feature that observes stores attaches its observer when it is installed
 * (`attachStoreObserver(store, observer)`, as `otel()` does), to every store and store part that
 * reports calls; the kernel holds no observer code.
 *
 * A store with no observer attached does no more than before: one `undefined` check per call.
 */

/**
 * How a store call ended: `ok`; `error`, the database answered with an error of its own (a
 * constraint violation: it is up); `failure`, it could not be reached or failed; `timeout`, no
 * answer within the store's `timeoutMs`; `circuit_open`, refused by the open breaker, never sent.
 */
export type StoreCallOutcome = "ok" | "error" | "failure" | "timeout" | "circuit_open";

/** Watches one store's calls. Must not throw (a throw is swallowed: the call is what matters). */
export interface StoreObserver {
  /**
   * A call begins. The function returned is called once as it ends, with its outcome. Called in
   * the caller's own async context, so a trace span started here is a child of the current one.
   * @param store the database, as the store's messages name it: `"Redis"`, `"PostgreSQL"`
   * @param operation what the call does: a Redis script's name (`consume`), an SQL command (`SELECT`)
   */
  callStarted(store: string, operation: string): (outcome: StoreCallOutcome) => void;
  /** The store's circuit breaker opened (`true`) or closed (`false`); also said once on attaching. */
  breakerChanged(store: string, open: boolean): void;
}

/** Implemented by a store (or a part of one) that reports its calls. */
export interface ReportsStoreCalls {
  /** Adds an observer (`attachStoreObserver`); attaching one twice changes nothing. */
  attachObserver?(observer: StoreObserver): void;
}

/** Several observers as one, each shielded from the others' failures. */
export function storeObservers(observers: readonly StoreObserver[]): StoreObserver {
  if (observers.length === 1) return observers[0]!;
  return {
    callStarted(store, operation) {
      const ends = observers.map((observer) => observer.callStarted(store, operation));
      return (outcome) => {
        for (const end of ends) end(outcome);
      };
    },
    breakerChanged(store, open) {
      for (const observer of observers) observer.breakerChanged(store, open);
    },
  };
}

/**
 * Attaches `observer` to a store and to each of its parts that reports calls on its own (a part
 * picked by hand from another store), each once.
 */
export function attachStoreObserver(store: object, observer: StoreObserver): void {
  const record = store as Record<string, unknown>;
  const targets = new Set([store, record.keys, record.usage, record.rateLimits, record.allowances]);
  for (const target of targets) {
    if (target === null || typeof target !== "object") continue;
    const attach = (target as ReportsStoreCalls).attachObserver;
    if (typeof attach === "function") attach.call(target, observer);
  }
}
