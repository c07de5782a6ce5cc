import { kindOf } from "../../keyward/kind-of.js";

/** What `lifecycle()` takes. Every field is optional. */
export interface LifecycleConfig {
  /**
   * Serve `PATCH {basePath}/{key_id}`: a key's owner (or an organization's manage role) changes its
   * `name`, `metadata`, `enabled` (disable and enable) and `allowedIps`, and narrows its `scopes`.
   * Default true. `keys.update` works either way.
   */
  updates?: boolean;
  /**
   * Graceful rotation: `POST {basePath}/{key_id}/rotate` takes `{ "gracePeriodSeconds": n }` and
   * the replaced secret keeps working for those seconds, on every instance, while the new one works
   * at once; another rotation or a revocation ends the grace. `true` allows graces up to 7 days;
   * `{ maxGracePeriodSeconds }` sets the cap. Off by default: the rotate body is then ignored, as
   * the contract has it, and `keys.rotate` refuses a grace.
   * @example
   * gracefulRotation: { maxGracePeriodSeconds: 24 * 60 * 60 },
   */
  gracefulRotation?: boolean | { maxGracePeriodSeconds?: number };
  /**
   * The most keys an owner (a user or an organization) may hold at once; revoked and expired keys
   * do not count. Creating one more is refused with 403 `too_many_keys`. Default 100; `false` for
   * no limit.
   */
  maxKeysPerOwner?: number | false;
}

/** Seven days: long enough for a weekly deploy train to pick up a new secret. */
export const defaultMaxGracePeriodSeconds = 7 * 24 * 60 * 60;
export const defaultMaxKeysPerOwner = 100;

/** Throws a `TypeError` naming the field for anything `lifecycle()` should not take. */
export function checkLifecycleConfig(config: unknown): void {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new TypeError(
      "Keyward: lifecycle() takes an object like { gracefulRotation: true, maxKeysPerOwner: 100 }",
    );
  }
  const { updates, gracefulRotation, maxKeysPerOwner } = config as LifecycleConfig;
  if ("environments" in config) {
    // The kernel does all an environment's work; only the list was ever lifecycle's.
    throw new TypeError(
      "Keyward: environments are configured in `keys.environments` (createKeyward's `keys`), not in lifecycle()",
    );
  }
  if (updates !== undefined && typeof updates !== "boolean") {
    throw new TypeError(`Keyward: \`lifecycle.updates\` must be a boolean, got ${kindOf(updates)}`);
  }
  checkGracefulRotation(gracefulRotation);
  if (
    maxKeysPerOwner !== undefined &&
    maxKeysPerOwner !== false &&
    !(Number.isInteger(maxKeysPerOwner) && maxKeysPerOwner > 0)
  ) {
    throw new TypeError(
      `Keyward: \`maxKeysPerOwner\` must be a positive whole number or false, got ${kindOf(maxKeysPerOwner)}`,
    );
  }
}

function checkGracefulRotation(option: LifecycleConfig["gracefulRotation"]): void {
  if (option === undefined || typeof option === "boolean") return;
  const max = typeof option === "object" && option !== null ? option.maxGracePeriodSeconds : option;
  if (
    typeof option !== "object" ||
    option === null ||
    (max !== undefined && !(Number.isSafeInteger(max) && (max as number) >= 0))
  ) {
    throw new TypeError(
      `Keyward: \`gracefulRotation\` must be true, false or { maxGracePeriodSeconds: a whole number of seconds, 0 or more }, got ${kindOf(option)}`,
    );
  }
}
