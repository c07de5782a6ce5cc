import type { KeyLifetimePolicy } from "../keys/key-lifetime.js";
import type { Owner } from "../keys/owner.js";
import { kindOf } from "../keyward/kind-of.js";
import { parseDuration } from "../rate-limit/duration.js";

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
}

/** Throws a `TypeError` naming the field for anything `permissions()` should not take. */
export function checkPermissionsConfig(config: unknown): asserts config is PermissionsConfig {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new TypeError(
      `Keyward: permissions() takes an object like { maxLifetime: "30d" }, got ${kindOf(config)}`,
    );
  }
  const { maxLifetime } = config as PermissionsConfig;
  if (maxLifetime === undefined || typeof maxLifetime === "function") return;
  lifetimeMs(maxLifetime, "permissions.maxLifetime");
}

/** The lifetime policy the kernel asks at create, or undefined without `maxLifetime`. */
export function lifetimePolicy(config: PermissionsConfig): KeyLifetimePolicy | undefined {
  const { maxLifetime } = config;
  if (maxLifetime === undefined) return undefined;
  if (typeof maxLifetime !== "function") {
    const fixed = lifetimeMs(maxLifetime, "permissions.maxLifetime");
    return () => fixed;
  }
  return (key) => {
    const lifetime = maxLifetime(key);
    return lifetime === undefined
      ? undefined
      : lifetimeMs(lifetime, `permissions.maxLifetime(${JSON.stringify(key.tier)})`);
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
