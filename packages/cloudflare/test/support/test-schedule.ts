/**
 * The schedule object the tests run (`schedule.test.ts`): every second, a Keyward on the store
 * under `schedulePrefix` with usage retention (30 days), `events()`, the inactivity scan (keys
 * unused for 30 days are disabled) and webhooks of `key.disabled` to the `RECEIVER` service, which
 * the test answers from Node. The test Worker's Cron Trigger (`scheduled` in `test-app.ts`) runs the
 * same Keyward on the store under `cronPrefix`, through `runBackgroundWork`.
 */
import { createKeyward } from "@keyward/core";
import { events } from "@keyward/core/events";
import { permissions } from "@keyward/core/permissions";
import { webhooks } from "@keyward/webhooks";
import { cloudflareStore, keywardSchedule, type ObjectNamespace } from "../../src/index.js";

export const schedulePrefix = "sched_";
export const scheduleEveryMs = 1_000;
export const receiverUrl = "http://receiver.test/hook";
/** A test signing secret: `whsec_` and the base64 of 32 bytes. */
export const receiverSecret = `whsec_${"A".repeat(43)}=`;

export interface ScheduleEnv {
  KEYWARD: ObjectNamespace;
  RECEIVER?: { fetch: typeof fetch };
}

/** The store prefix of the Cron Trigger's test (`scheduled` in `test-app.ts`). */
export const cronPrefix = "cron_";

/** The Keyward each run builds, on the store under `prefix`. */
export function scheduleKeyward(env: ScheduleEnv, prefix: string) {
  return createKeyward({
    store: cloudflareStore({ namespace: env.KEYWARD, prefix }),
    scopes: { "profile:read": "Read" },
    tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
    jwt: false,
    logger: false,
    usage: { retainDays: 30, pruneIntervalMs: false },
    features: [
      events({ pruneIntervalMs: false, expiring: { scanIntervalMs: false } }),
      permissions({ disableAfterUnused: "30d", inactivityScanIntervalMs: false }),
      webhooks({
        endpoints: [
          { id: "receiver", url: receiverUrl, secret: receiverSecret, types: ["key.disabled"] },
        ],
        pollIntervalMs: false,
        ...(env.RECEIVER ? { fetch: (input, init) => env.RECEIVER!.fetch(input, init) } : {}),
      }),
    ],
  });
}

export const KeywardSchedule = keywardSchedule<ScheduleEnv>({
  everyMs: scheduleEveryMs,
  keyward: (env) => scheduleKeyward(env, schedulePrefix),
});
