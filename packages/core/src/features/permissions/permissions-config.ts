import type { Owner } from "../../keys/owner.js";
import { kindOf } from "../../keyward/kind-of.js";
import { parseDuration } from "../../rate-limit/duration.js";
import type { KeyLifetimePolicy } from "./key-lifetime.js";

/** A lifetime: `"30d"`, `"12h"`, or milliseconds. */
export type KeyLifetime = string | number;

/** What `permissions()` takes. */
export interface PermissionsConfig {
  /**
   * The longest a new key may live: an expiry is then required and capped, and a key created
   * without one gets the cap. One lifetime for every key (`"30d"`), or one per key from its tier
   * and owner, undefined for no cap:
   * `({ tier, owner }) => owner.type === "organization" ? "90d" : { free: "30d" }[tier]`.
   */
  maxLifetime?: KeyLifetime | ((key: { tier: string; owner: Owner }) => KeyLifetime | undefined);
  /**
   * How long a key may go unused before it is disabled (`key.disabled`, actor `system`): one
   * duration (`"365d"`) or one per key from its tier and owner (undefined: never). Its last use is
   * its usage's `lastUsedAt`, else its last rotation, else its creation. Needs a key store that
   * lists live keys (`keys.listLive`: memory, PostgreSQL, Redis).
   */
  disableAfterUnused?:
    | KeyLifetime
    | ((key: { tier: string; owner: Owner }) => KeyLifetime | undefined);
  /** How long before the disable `key.inactive` warns (with `events()`); default 7 days, 0: none. */
  inactivityWarning?: KeyLifetime;
  /**
   * How often every instance scans for unused keys, in ms; default one hour. `false`: no timer
   * (call `keyward.permissions.scanInactive()` yourself, e.g. from a Worker's scheduled handler).
   */
  inactivityScanIntervalMs?: number | false;
  /**
   * Keeps `lastUsedAddress`, the client address of each key's last use (the `clientIp` `verify` is
   * given; the adapters pass it), with its `lastUsedAt`: shown on the key's record and usage
   * report. Only the latest is kept, as long as the key's usage is. Default false: an address
   * is personal data (docs/permissions.md, "Recording the last client address").
   */
  lastUsedAddress?: boolean;
}

/** Throws a `TypeError` naming the field for anything `permissions()` should not take. */
export function checkPermissionsConfig(config: unknown): asserts config is PermissionsConfig {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new TypeError(
      `Keyward: permissions() takes an object like { maxLifetime: "30d" }, got ${kindOf(config)}`,
    );
  }
  const {
    maxLifetime,
    disableAfterUnused,
    inactivityWarning,
    inactivityScanIntervalMs,
    lastUsedAddress,
  } = config as PermissionsConfig;
  if (lastUsedAddress !== undefined && typeof lastUsedAddress !== "boolean") {
    throw new TypeError(
      `Keyward: \`permissions.lastUsedAddress\` must be true or false, got ${kindOf(lastUsedAddress)}`,
    );
  }
  if (maxLifetime !== undefined && typeof maxLifetime !== "function") {
    lifetimeMs(maxLifetime, "permissions.maxLifetime");
  }
  if (disableAfterUnused !== undefined && typeof disableAfterUnused !== "function") {
    lifetimeMs(disableAfterUnused, "permissions.disableAfterUnused");
  }
  if (inactivityWarning !== undefined && inactivityWarning !== 0 && inactivityWarning !== "0s") {
    lifetimeMs(inactivityWarning, "permissions.inactivityWarning");
  }
  const interval = inactivityScanIntervalMs;
  if (
    interval !== undefined &&
    interval !== false &&
    !(Number.isInteger(interval) && interval >= 1_000)
  ) {
    throw new TypeError(
      `Keyward: \`permissions.inactivityScanIntervalMs\` must be a whole number of milliseconds, at least 1000, or false; got ${kindOf(interval)}`,
    );
  }
}

/** How long a key may go unused, by tier and owner, or undefined without `disableAfterUnused`. */
export function inactivityPolicy(config: PermissionsConfig): KeyLifetimePolicy | undefined {
  return policyOf(config.disableAfterUnused, "permissions.disableAfterUnused");
}

/** The warning's lead, in ms (0: none). */
export function inactivityWarningMs(config: PermissionsConfig): number {
  const { inactivityWarning } = config;
  if (inactivityWarning === undefined) return 7 * 86_400_000;
  if (inactivityWarning === 0 || inactivityWarning === "0s") return 0;
  return lifetimeMs(inactivityWarning, "permissions.inactivityWarning");
}

/** The lifetime policy the kernel asks at create, or undefined without `maxLifetime`. */
export function lifetimePolicy(config: PermissionsConfig): KeyLifetimePolicy | undefined {
  return policyOf(config.maxLifetime, "permissions.maxLifetime");
}

function policyOf(
  value: PermissionsConfig["maxLifetime"],
  field: string,
): KeyLifetimePolicy | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "function") {
    const fixed = lifetimeMs(value, field);
    return () => fixed;
  }
  return (key) => {
    const lifetime = value(key);
    return lifetime === undefined
      ? undefined
      : lifetimeMs(lifetime, `${field}(${JSON.stringify(key.tier)})`);
  };
}

function lifetimeMs(value: unknown, field: string): number {
  let ms: number;
  try {
    ms = parseDuration(value as KeyLifetime);
  } catch {
    throw new TypeError(
      `Keyward: \`${field}\` must be a lifetime such as "30d", "12h" or a number of milliseconds, got ${kindOf(value)}${typeof value === "string" ? ` ${JSON.stringify(value)}` : ""}`,
    );
  }
  if (!(ms >= 1_000)) {
    throw new TypeError(`Keyward: \`${field}\` must be at least one second, got ${ms} ms`);
  }
  return ms;
}
