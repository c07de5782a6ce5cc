/**
 * The policy instance Keyward's own tests check `maxLifetime` and `inactivity` against: the demo
 * contract on a manual clock, with a cap, an inactivity limit and its warning, and no scan timer.
 */
import { type ManualClock, manualClock } from "@keyward/core";
import type { PermissionsConfig } from "@keyward/core/permissions";
import type { HttpSuiteOptions } from "./options.js";

const day = 86_400_000;

/**
 * The demo policy instance's limits: keys live at most 30 days and are disabled after 10 unused,
 * warned 2 days before; the cap is longer than the limit, so a key is disabled before it expires.
 */
export const DEMO_POLICY_LIMITS = {
  maxLifetimeMs: 30 * day,
  disableAfterUnusedMs: 10 * day,
  inactivityWarningMs: 2 * day,
} as const;

export interface DemoPolicies {
  /** The instance's clock, started at the system's time: the suite moves it. */
  clock: ManualClock;
  /** Overrides for `demoKeyward` (or `createKeyward`'s `clock`, and the demo's `permissions()`). */
  keyward: { clock: ManualClock; permissions: PermissionsConfig };
  /**
   * The `maxLifetime` and `inactivity` options of the HTTP suite for the instance `fetch` reaches,
   * whose scan is `scan` (`() => keyward.permissions.scanInactive()`).
   */
  suiteOptions(
    fetch: (request: Request) => Promise<Response>,
    scan: () => Promise<unknown>,
  ): Required<Pick<HttpSuiteOptions, "maxLifetime" | "inactivity">>;
}

/**
 * A clock and the configuration of a policy instance, and the suite options that check it. A
 * fresh clock per call: each instance's time is its own.
 *
 * @example
 * const policies = demoPolicies();
 * const policyKeyward = demoKeyward(jwtSecret, policies.keyward);
 * describeHttpConformance("my adapter", {
 *   fetch, jwtSecret,
 *   ...policies.suiteOptions(policyFetch, () => policyKeyward.permissions.scanInactive()),
 * });
 */
export function demoPolicies(): DemoPolicies {
  const clock = manualClock(Date.now());
  const now = () => clock.now();
  return {
    clock,
    keyward: {
      clock,
      permissions: {
        maxLifetime: DEMO_POLICY_LIMITS.maxLifetimeMs,
        disableAfterUnused: DEMO_POLICY_LIMITS.disableAfterUnusedMs,
        inactivityWarning: DEMO_POLICY_LIMITS.inactivityWarningMs,
        inactivityScanIntervalMs: false,
      },
    },
    suiteOptions: (fetch, scan) => ({
      maxLifetime: { ms: DEMO_POLICY_LIMITS.maxLifetimeMs, fetch, now },
      inactivity: {
        fetch,
        disableAfterUnusedMs: DEMO_POLICY_LIMITS.disableAfterUnusedMs,
        warningMs: DEMO_POLICY_LIMITS.inactivityWarningMs,
        now,
        advance: (ms) => clock.advance(ms),
        scan,
      },
    }),
  };
}
