import { StoreUnavailableError } from "@keyward/core/toolkit";

/**
 * The error the store raises itself (a call past `timeoutMs`, or one not sent because Redis is
 * known to be down): core's `StoreUnavailableError`, with `store: "Redis"` and `kind` saying
 * which. Errors from Redis or the client are passed on as they are.
 *
 * @deprecated Use `StoreUnavailableError` (the same class, shared by every store).
 */
export const RedisStoreError = StoreUnavailableError;
/** @deprecated Use `StoreUnavailableError`. */
export type RedisStoreError = StoreUnavailableError;
