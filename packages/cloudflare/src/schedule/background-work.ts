/**
 * The periodic work a Keyward on Node runs on its own timers, run once, in order, on an instance
 * built for it: what a Durable Object's alarm (`schedule-object.ts`) or a Cron Trigger's
 * `scheduled` handler calls, since a Worker keeps no timer running past its request.
 *
 * Each task runs when the instance has it: usage retention (`usage.retainDays`), the event log's
 * retention and `key.expiring` scan (`events()`), the inactivity scan (`permissions()`), webhook
 * delivery (`webhooks()`) and the metering export (`metering()`). A task the instance has but did
 * not configure answers with core's `TypeError` ("Keyward: … is not configured") and is left out
 * of the run; any other failure is recorded and the next task still runs.
 */
import type { Keyward } from "@keyward/core";

/** What one task did: its own result, or the message of its failure. */
export type TaskOutcome = { done: unknown } | { failed: string };

export interface BackgroundRun {
  startedAt: number;
  finishedAt: number;
  /** Per task run, by the name of the call (`"usage.prune"`); tasks left out are absent. */
  tasks: Record<string, TaskOutcome>;
}

type Task = { name: string; run(keyward: Keyward): Promise<unknown> | undefined };

/** A feature's API on the instance, when the feature is listed. */
const apiOf = <T>(keyward: Keyward, feature: string): T | undefined =>
  (keyward as unknown as Record<string, T | undefined>)[feature];

/**
 * The order matters: the scans write events (`key.expiring`, `key.inactive`, `key.disabled`)
 * before the webhook outbox is delivered, so a run delivers what it wrote.
 */
const tasks: readonly Task[] = [
  { name: "usage.prune", run: (keyward) => keyward.usage.prune() },
  {
    name: "events.scanExpiring",
    run: (keyward) =>
      apiOf<{ scanExpiring(): Promise<unknown> }>(keyward, "events")?.scanExpiring(),
  },
  {
    name: "permissions.scanInactive",
    run: (keyward) =>
      apiOf<{ scanInactive(): Promise<unknown> }>(keyward, "permissions")?.scanInactive(),
  },
  {
    name: "events.prune",
    run: (keyward) => apiOf<{ prune(): Promise<unknown> }>(keyward, "events")?.prune(),
  },
  {
    name: "webhooks.deliverNow",
    run: (keyward) => apiOf<{ deliverNow(): Promise<unknown> }>(keyward, "webhooks")?.deliverNow(),
  },
  {
    name: "metering.exportNow",
    run: (keyward) => apiOf<{ exportNow(): Promise<unknown> }>(keyward, "metering")?.exportNow(),
  },
];

/**
 * Runs every task `keyward` has, one after another, and resolves with what each did. Never
 * rejects: a failed task is in the answer. The instance is not closed here.
 *
 * @example
 * // A Cron Trigger instead of the schedule object:
 * export default {
 *   async scheduled(_controller, env, ctx) {
 *     const keyward = makeKeyward(env);
 *     ctx.waitUntil(runBackgroundWork(keyward).finally(() => keyward.close()));
 *   },
 * };
 */
export async function runBackgroundWork(
  keyward: Keyward,
  clock: { now(): number } = Date,
): Promise<BackgroundRun> {
  const startedAt = clock.now();
  const outcomes: Record<string, TaskOutcome> = {};
  for (const task of tasks) {
    let running: Promise<unknown> | undefined;
    try {
      running = task.run(keyward);
      if (running === undefined) continue;
      outcomes[task.name] = { done: (await running) ?? null };
    } catch (error) {
      // Not configured (`usage.prune` without `retainDays`, `scanExpiring` with `expiring: false`):
      // core's own refusal, a `TypeError` whose message starts with "Keyward:".
      if (error instanceof TypeError && error.message.startsWith("Keyward:")) continue;
      outcomes[task.name] = { failed: error instanceof Error ? error.message : String(error) };
    }
  }
  return { startedAt, finishedAt: clock.now(), tasks: outcomes };
}
