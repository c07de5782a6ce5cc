/**
 * The failure policy a store puts around every call to its database, giving the request path the
 * two properties it needs from a remote store:
 *
 * - **A deadline.** No call waits longer than `timeoutMs`, whatever the client does meanwhile
 *   (Redis clients queue commands while reconnecting; a `pg` pool queues checkouts behind a hung
 *   connection). The guard cancels nothing itself: it aborts the signal it gave the call, so the
 *   call can let go of what it holds (a pooled connection is destroyed, not returned).
 * - **A circuit breaker.** After `failureThreshold` failures in a row, calls fail at once for
 *   `retryIntervalMs`, then one call is let through as a probe; its success closes the circuit.
 *   During an outage requests are answered by the failure policy immediately instead of each
 *   waiting out the timeout, and service resumes without a restart once a probe gets through.
 *
 * Real time is right here (not an injected `Clock`): the deadline and the retry interval are about
 * the network, not about rate-limit or usage semantics.
 */
import {
  type StoreCallOutcome,
  type StoreObserver,
  storeObservers,
} from "../observation/store-observer.js";
import { withDeadline } from "./deadline.js";
import { StoreUnavailableError } from "./store-unavailable-error.js";

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. Default 3. */
  failureThreshold?: number;
  /** How long the circuit stays open before one call probes the database again. Default 500 ms. */
  retryIntervalMs?: number;
}

export interface CallGuardOptions {
  /** The database, as messages name it: `"Redis"`, `"PostgreSQL"`. */
  store: string;
  timeoutMs: number;
  /** `false` sends every call, however many failed before it. */
  circuitBreaker: CircuitBreakerOptions | false;
  /**
   * Whether an error a call rejected with means the database is unreachable or unwell. Such errors
   * count toward opening the circuit and go to `onError`; any other error is the database's answer
   * (a constraint violation, say): it proves the database is up, so it closes the circuit like a
   * success, and is passed on unreported. Default: every error is a failure. Timeouts always are.
   */
  isFailure?(error: unknown): boolean;
  /** Told about every failed call (not about calls the open circuit refused without sending). */
  onError(error: unknown): void;
  /** Called after a success that follows a failure: the database is answering again. */
  onRecovered?(): void;
}

export interface CallGuard {
  /**
   * Runs `call` under the deadline and the breaker. `signal` is aborted, with the timeout error as
   * its reason, when the deadline passes; by then the caller has its rejection.
   * @param operation what the call does, for observers (`observation/store-observer.ts`): a Redis
   *   script's name, an SQL command. Default `"call"`.
   */
  run<T>(call: (signal: AbortSignal) => Promise<T>, operation?: string): Promise<T>;
  /** Whether the last call failed (the database may be down). */
  readonly failing: boolean;
  /** Whether the breaker is open: calls are refused without being sent, but for a probe. */
  readonly open: boolean;
  /**
   * Reports every call and each change of the breaker to `observer` from now on (told the breaker's
   * state at once), besides every observer attached before; attaching one twice changes nothing.
   * A store passes it on as its own `attachObserver`.
   */
  attachObserver(observer: StoreObserver): void;
}

/**
 * @example
 * const guard = callGuard({ store: "PostgreSQL", timeoutMs: 2_000, circuitBreaker: {}, onError: console.warn });
 * const { rows } = await guard.run(() => pool.query("SELECT 1"));
 */
export function callGuard(options: CallGuardOptions): CallGuard {
  const { store, timeoutMs, onError, onRecovered } = options;
  const isFailure = options.isFailure ?? (() => true);
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) {
    throw new TypeError(`${store} store: timeoutMs must be a positive number, got ${timeoutMs}`);
  }
  const breaker = options.circuitBreaker;
  const threshold = breaker === false ? Number.POSITIVE_INFINITY : (breaker.failureThreshold ?? 3);
  const retryIntervalMs = breaker === false ? 0 : (breaker.retryIntervalMs ?? 500);
  if (!(threshold >= 1)) {
    throw new TypeError(`${store} store: circuitBreaker.failureThreshold must be at least 1`);
  }
  if (!(retryIntervalMs >= 0)) {
    throw new TypeError(`${store} store: circuitBreaker.retryIntervalMs must be 0 or more`);
  }

  let failures = 0;
  let retryAt = 0;
  let probing = false;
  let open = false;
  /** Every observer attached, and them as one (undefined: none, one check per call). */
  const attachedObservers: StoreObserver[] = [];
  let observer: StoreObserver | undefined;
  const setOpen = (now: boolean) => {
    if (open === now) return;
    open = now;
    try {
      observer?.breakerChanged(store, now);
    } catch {}
  };
  /** The observer's end of one call, shielded: a throwing observer must not fail the call. */
  const observe = (operation: string): ((outcome: StoreCallOutcome) => void) | undefined => {
    if (observer === undefined) return undefined;
    try {
      const end = observer.callStarted(store, operation);
      return (outcome) => {
        try {
          end(outcome);
        } catch {}
      };
    } catch {
      return undefined;
    }
  };
  const unavailable = new StoreUnavailableError(
    "unavailable",
    store,
    `${store} is unavailable: recent calls failed, the next retry is not due yet`,
  );

  const succeeded = () => {
    const recovered = failures > 0;
    failures = 0;
    probing = false;
    setOpen(false);
    if (recovered) onRecovered?.();
  };
  const failed = (error: unknown) => {
    failures += 1;
    probing = false;
    if (failures >= threshold) {
      retryAt = performance.now() + retryIntervalMs;
      setOpen(true);
    }
    onError(error);
  };
  /** @returns how the call ended, for the observer */
  const settle = (error: unknown, timedOut: boolean): StoreCallOutcome => {
    if (timedOut || isFailure(error)) {
      failed(error);
      return timedOut ? "timeout" : "failure";
    }
    succeeded();
    return "error";
  };

  return {
    get failing() {
      return failures > 0;
    },
    get open() {
      return open;
    },
    attachObserver(attached) {
      if (attachedObservers.includes(attached)) return;
      attachedObservers.push(attached);
      observer = storeObservers(attachedObservers);
      try {
        attached.breakerChanged(store, open);
      } catch {}
    },

    run<T>(call: (signal: AbortSignal) => Promise<T>, operation = "call"): Promise<T> {
      const end = observe(operation);
      if (failures >= threshold) {
        if (probing || performance.now() < retryAt) {
          end?.("circuit_open");
          return Promise.reject(unavailable);
        }
        probing = true;
      }
      const controller = new AbortController();
      let pending: Promise<T>;
      try {
        pending = call(controller.signal);
      } catch (error) {
        end?.(settle(error, false));
        return Promise.reject(error);
      }
      let timedOut = false;
      return withDeadline(pending, timeoutMs, () => {
        timedOut = true;
        const error = new StoreUnavailableError(
          "timeout",
          store,
          `${store} did not answer within ${timeoutMs} ms`,
        );
        controller.abort(error);
        return error;
      }).then(
        (value) => {
          succeeded();
          end?.("ok");
          return value;
        },
        (error: unknown) => {
          const outcome = settle(error, timedOut);
          end?.(outcome);
          throw error;
        },
      );
    },
  };
}
