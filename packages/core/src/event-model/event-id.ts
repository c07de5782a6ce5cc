/**
 * Event ids: `evt_` + 24 base62 characters, made where the event is built, before it is written,
 * so the id the audit log shows is the one `onEvent` saw (and the one a webhook will carry).
 */
import { randomBase62 } from "../keys/base62.js";
import type { RandomSource } from "../random.js";

const eventIdPattern = /^evt_[0-9A-Za-z]{24}$/;

export function generateEventId(random: RandomSource): string {
  return `evt_${randomBase62(24, random)}`;
}

export function isEventId(value: unknown): value is string {
  return typeof value === "string" && eventIdPattern.test(value);
}
