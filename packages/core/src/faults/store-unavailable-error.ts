/**
 * The error a remote store raises itself when it gives up on its database: a call that took longer
 * than the store's deadline, or one not sent because the circuit breaker knows the database is
 * down. Errors from the database or its client are passed on as they are. Keyward answers either
 * with a 500 whose body reveals nothing; a host's `onError` can tell an outage from a bug with
 * `instanceof StoreUnavailableError`.
 */
export type StoreUnavailableKind = "timeout" | "unavailable";

export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";
  /** `"timeout"`: no answer within the deadline; `"unavailable"`: not sent, the store is known to be down. */
  readonly kind: StoreUnavailableKind;
  /** Which store gave up, as it names itself in messages: `"Redis"`, `"PostgreSQL"`. */
  readonly store: string;

  constructor(
    kind: StoreUnavailableKind,
    store: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.kind = kind;
    this.store = store;
  }
}
