/**
 * The text form of a `KeyInvalidation` on a wire (a NOTIFY payload, a pub/sub message), written
 * and read in one place so that channels of every kind, and their versions, understand each other.
 */
import type { KeyInvalidation } from "./invalidation-channel.js";

/**
 * The payload a channel sends for `event`: JSON with exactly `keyId` and `secretHash`, so nothing
 * else a caller put on the object travels.
 *
 * @example
 * await redis.publish(channel, encodeInvalidation(event));
 */
export function encodeInvalidation(event: KeyInvalidation): string {
  return JSON.stringify({ keyId: event.keyId, secretHash: event.secretHash });
}

/**
 * The event in a received payload, or `null` when it is not one (not JSON, or without string
 * `keyId` and `secretHash`). What to do with `null` is the channel's choice: a message that is not
 * ours may be ignored, or every cached key dropped to be safe.
 *
 * @example
 * const event = decodeInvalidation(message);
 * if (event) listener(event);
 */
export function decodeInvalidation(payload: string): KeyInvalidation | null {
  try {
    const value: unknown = JSON.parse(payload);
    if (typeof value !== "object" || value === null) return null;
    const { keyId, secretHash } = value as Partial<Record<keyof KeyInvalidation, unknown>>;
    if (typeof keyId === "string" && typeof secretHash === "string") return { keyId, secretHash };
  } catch {
    // Not JSON: not an invalidation.
  }
  return null;
}
