/**
 * What the HTTP suite's policy options hand it (`maxLifetime`, `inactivity`): each an implementation
 * of its own, configured with the policy. Types only, so that `options.ts` and the suites share them.
 */

/** What `maxLifetime` hands the suite: the capped implementation and its cap. */
export interface MaxLifetimeSuiteOptions {
  /**
   * The longest a key may live, in ms, the same for every tier and owner: the implementation lists
   * `permissions({ maxLifetime })` with it (the demo's `KEYWARD_MAX_KEY_LIFETIME`). At least a
   * minute.
   */
  ms: number;
  /**
   * Sends one request to the capped implementation: configured as the one under test (the same
   * features, tiers, scopes and host route), with the cap. A cap changes what every create
   * answers, so it is an instance of its own, not the one the rest of the suite runs against.
   */
  fetch(request: Request): Promise<Response>;
  /** The capped implementation's clock, when it is not the system's (a manual clock); default `Date.now`. */
  now?(): number;
}

/** What `inactivity` hands the suite: an implementation on a clock it moves, and its scan. */
export interface InactivitySuiteOptions {
  /**
   * Sends one request to an implementation configured as the one under test (the same features,
   * tiers, scopes and host route) that lists `permissions({ disableAfterUnused })` with the limit
   * below, no timer of its own (`inactivityScanIntervalMs: false`) and the clock below. Moving a
   * clock expires every JWT and rate-limit window minted against it, so it is an instance of its
   * own, not the one the rest of the suite runs against. A `maxLifetime` it has must be longer
   * than `disableAfterUnusedMs` and a day: a key that expires first is never disabled.
   */
  fetch(request: Request): Promise<Response>;
  /** `disableAfterUnused`, in ms, the same for every tier and owner. At least ten seconds. */
  disableAfterUnusedMs: number;
  /** `inactivityWarning`, in ms: 0 for none; default 7 days, the feature's default. */
  warningMs?: number;
  /** The implementation's clock: the suite mints its JWTs at this time. */
  now(): number;
  /** Moves the implementation's clock forward by `ms` (`manualClock`'s `advance`). */
  advance(ms: number): void | Promise<void>;
  /** Runs the inactivity scan and resolves when it is done (`keyward.permissions.scanInactive()`). */
  scan(): Promise<unknown>;
}
