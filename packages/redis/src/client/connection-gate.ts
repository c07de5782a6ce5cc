/**
 * Fails a call at once when the client itself says it has lost its connection, instead of handing
 * it to the client's offline queue. A queued command would wait out the store's deadline and then
 * still run once the client reconnects, consuming a request's allowance long after that request
 * was answered; during an outage nothing should pile up to be replayed later.
 *
 * Only a client that has been ready before counts as disconnected: a new client's first commands
 * may wait for its first connection (within the deadline).
 */
import { StoreUnavailableError } from "@keyward/core/toolkit";

/**
 * Whether a call may be sent now. `ready()` is the client's own state: true when connected, false
 * when not, undefined when the client cannot tell (then every call is sent).
 */
export function connectionGate(ready: () => boolean | undefined): () => boolean {
  let seenReady = false;
  return () => {
    const state = ready();
    if (state === undefined) return true;
    if (state) seenReady = true;
    return state || !seenReady;
  };
}

export const disconnectedError = (): StoreUnavailableError =>
  new StoreUnavailableError(
    "unavailable",
    "Redis",
    "The Redis client has lost its connection and is reconnecting",
  );
