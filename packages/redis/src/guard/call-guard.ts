/**
 * Every Redis call the store makes goes through one guard, which gives it the two properties the
 * request path needs from a remote store:
 *
 * - **A deadline.** No call waits longer than `timeoutMs`, whatever the client does meanwhile
 *   (ioredis and node-redis queue commands while reconnecting). The command itself is not
 *   cancelled: it may still run on Redis later.
 * - **A circuit breaker.** After `failureThreshold` failures in a row, calls fail at once for
 *   `retryIntervalMs`, then one call is let through as a probe; its success closes the circuit.
 *   During an outage requests are answered by the failure policy immediately instead of each
 *   waiting out the timeout, and service resumes without a restart once a probe gets through.
 *
 * Real time is right here (not an injected `Clock`): the deadline and the retry interval are about
 * the network, not about the rate-limit or usage semantics.
 */
import { RedisStoreError } from "./redis-store-error.js";

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. Default 3. */
  failureThreshold?: number;
  /** How long the circuit stays open before one call probes Redis again. Default 500 ms. */
  retryIntervalMs?: number;
}

export interface CallGuardOptions {
  timeoutMs: number;
  /** `false` sends every call to Redis, however many failed before it. */
  circuitBreaker: CircuitBreakerOptions | false;
  /** Told about every failed call (not about calls the open circuit refused without sending). */
  onError(error: unknown): void;
  /** Called after a success that follows a failure: Redis is answering again. */
  onRecovered?(): void;
}

export interface CallGuard {
  run<T>(call: () => Promise<T>): Promise<T>;
  /** Whether the last call failed (Redis may be down). */
  readonly failing: boolean;
}

export function callGuard(options: CallGuardOptions): CallGuard {
  const { timeoutMs, onError, onRecovered } = options;
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) {
    throw new TypeError(`@keyward/redis: timeoutMs must be a positive number, got ${timeoutMs}`);
  }
  const breaker = options.circuitBreaker;
  const threshold = breaker === false ? Number.POSITIVE_INFINITY : (breaker.failureThreshold ?? 3);
  const retryIntervalMs = breaker === false ? 0 : (breaker.retryIntervalMs ?? 500);
  if (!(threshold >= 1)) throw new TypeError("@keyward/redis: failureThreshold must be at least 1");
  if (!(retryIntervalMs >= 0))
    throw new TypeError("@keyward/redis: retryIntervalMs must be 0 or more");

  let failures = 0;
  let retryAt = 0;
  let probing = false;
  const unavailable = new RedisStoreError(
    "unavailable",
    "Redis is unavailable: recent calls failed, the next retry is not due yet",
  );

  const succeeded = () => {
    const recovered = failures > 0;
    failures = 0;
    probing = false;
    if (recovered) onRecovered?.();
  };
  const failed = (error: unknown) => {
    failures += 1;
    probing = false;
    if (failures >= threshold) retryAt = performance.now() + retryIntervalMs;
    onError(error);
  };

  return {
    get failing() {
      return failures > 0;
    },

    run<T>(call: () => Promise<T>): Promise<T> {
      if (failures >= threshold) {
        if (probing || performance.now() < retryAt) return Promise.reject(unavailable);
        probing = true;
      }
      let pending: Promise<T>;
      try {
        pending = call();
      } catch (error) {
        failed(error);
        return Promise.reject(error);
      }
      return new Promise<T>((resolve, reject) => {
        // Whichever comes first decides; a late answer after the deadline is ignored.
        let settled = false;
        const timer = setTimeout(() => {
          settled = true;
          const error = new RedisStoreError(
            "timeout",
            `Redis did not answer within ${timeoutMs} ms`,
          );
          failed(error);
          reject(error);
        }, timeoutMs);
        pending.then(
          (value) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            succeeded();
            resolve(value);
          },
          (error: unknown) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            failed(error);
            reject(error);
          },
        );
      });
    },
  };
}
