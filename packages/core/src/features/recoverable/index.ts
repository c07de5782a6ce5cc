/**
 * `@keyward/core/recoverable`: opt-in recoverable keys. Listed, every secret `create` and `rotate`
 * issue is also kept sealed (AES-256-GCM via WebCrypto, under a key ring the database never
 * holds), and `POST {basePath}/{key_id}/reveal` shows it again to a user who may manage the key and
 * signed in recently. Off by default: a recoverable secret is only as safe as the key ring. See
 * docs/security.md.
 *
 * @example
 * import { recoverable } from "@keyward/core/recoverable";
 * createKeyward({ store, scopes, tiers, jwt, features: [recoverable({
 *   keyRing: { current: "2026-11", keys: { "2026-11": process.env.KEYWARD_KEK! } },
 *   maxSessionAge: "5m",
 * })] });
 */

import type { KeywardFeature } from "../../feature-interface/feature.js";
import { parseDuration } from "../../rate-limit/duration.js";
import { type KeyRingConfig, keyRing } from "./key-ring.js";
import { revealPath } from "./openapi-path.js";
import { revealEndpoint } from "./reveal-endpoint.js";
import { sealedSecretField, sealingHooks } from "./sealing-hooks.js";

export type { KeyRingConfig } from "./key-ring.js";

export interface RecoverableConfig {
  /** The key-encryption keys: `current` seals, every one listed opens. */
  keyRing: KeyRingConfig;
  /** How recent a sign-in a reveal needs (the JWT's `iat`): ms or "5m"; default 5 minutes. */
  maxSessionAge?: number | string;
}

/** Throws a `TypeError` naming the field for a malformed `config`. */
export function recoverable(config: RecoverableConfig): KeywardFeature<"recoverable"> {
  if (typeof config !== "object" || config === null) {
    throw new TypeError("recoverable(config): { keyRing: { current, keys }, maxSessionAge? }");
  }
  const ring = keyRing(config.keyRing);
  let maxSessionAgeMs: number;
  try {
    maxSessionAgeMs = parseDuration(config.maxSessionAge ?? "5m");
  } catch (error) {
    throw new TypeError(`recoverable({ maxSessionAge }): ${(error as Error).message}`);
  }
  return {
    name: "recoverable",
    extends: { fields: [sealedSecretField], writes: sealingHooks(ring) },
    install: (kernel) => ({
      endpoints: [revealEndpoint(kernel, ring, maxSessionAgeMs)],
      openapi: [revealPath],
    }),
  };
}
