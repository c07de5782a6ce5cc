/**
 * The error the store raises itself: a call that took longer than `timeoutMs`, or one not sent
 * because Redis is known to be down. Errors from Redis or the client are passed on as they are.
 */
export class RedisStoreError extends Error {
  override readonly name = "RedisStoreError";
  readonly reason: "timeout" | "unavailable";

  constructor(reason: "timeout" | "unavailable", message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}
