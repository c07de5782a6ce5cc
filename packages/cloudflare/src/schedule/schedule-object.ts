/**
 * `keywardSchedule`: a Durable Object class whose alarm runs Keyward's periodic work
 * (`background-work.ts`) every `everyMs`, on a Keyward the host's `keyward(env)` builds for the run
 * and closes after it. A Worker keeps no timer past its request, so the usage prune, the scans,
 * the event log's retention and webhook delivery would otherwise run only while a request happens
 * to keep an instance alive. One object (named `keyward-schedule`) is the whole schedule: its alarm
 * fires at one place at a time, so runs never overlap.
 *
 * The alarm is set once by `startKeywardSchedule(env.KEYWARD_SCHEDULE)` (from any request; it is a
 * no-op while an alarm is set) and then sets its own next one first thing in each run, so a run
 * that fails or is cut short does not end the schedule.
 */
import type { Keyward } from "@keyward/core";
import type { DurableObjectState } from "../object/durable-object-state.js";
import type { ObjectNamespace } from "../protocol/object-call.js";
import { type BackgroundRun, runBackgroundWork } from "./background-work.js";

/** The one object of the schedule, in the namespace bound to the class `keywardSchedule` makes. */
export const scheduleObjectName = "keyward-schedule";

const scheduleSchema = `
CREATE TABLE IF NOT EXISTS schedule_runs (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  runs INTEGER NOT NULL,
  last TEXT NOT NULL
);`;

export interface KeywardScheduleOptions<Env> {
  /**
   * Builds the Keyward a run works with, from the Worker's bindings: the same configuration (store,
   * features) as the Worker's own. Its timers are not needed (`pruneIntervalMs: false` and the like
   * are fine); it is closed after the run.
   */
  keyward(env: Env): Keyward | Promise<Keyward>;
  /** Time between runs, in ms. Default 5 minutes. */
  everyMs?: number;
}

/** What `GET /last` on the schedule's object answers. */
export interface ScheduleState {
  /** Runs finished since the object was created. */
  runs: number;
  /** The latest, or null before the first; `{ failed }` when the Keyward could not be built. */
  last: BackgroundRun | { failed: string; at: number } | null;
  /** When the alarm fires next, or null when the schedule is not started. */
  nextAt: number | null;
}

/** A Durable Object class, as Workers constructs one. */
export type ScheduleObjectClass<Env> = new (
  state: DurableObjectState,
  env: Env,
) => {
  fetch(request: Request): Promise<Response>;
  alarm(): Promise<void>;
};

/**
 * @example
 * // worker.ts
 * export const KeywardSchedule = keywardSchedule<Env>({ keyward: (env) => makeKeyward(env) });
 * // wrangler.toml: bind it as KEYWARD_SCHEDULE (new_sqlite_classes = ["KeywardSchedule"]), then
 * // in fetch: ctx.waitUntil(startKeywardSchedule(env.KEYWARD_SCHEDULE));
 */
export function keywardSchedule<Env>(
  options: KeywardScheduleOptions<Env>,
): ScheduleObjectClass<Env> {
  const everyMs = options.everyMs ?? 5 * 60_000;
  if (typeof options.keyward !== "function") {
    throw new TypeError("keywardSchedule: `keyward` must be a function (env) => Keyward");
  }
  if (!(Number.isFinite(everyMs) && everyMs >= 1)) {
    throw new TypeError(`keywardSchedule: everyMs must be a positive number of ms, got ${everyMs}`);
  }

  return class KeywardScheduleObject {
    readonly #state: DurableObjectState;
    readonly #env: Env;

    constructor(state: DurableObjectState, env: Env) {
      this.#state = state;
      this.#env = env;
      state.storage.sql.exec(scheduleSchema);
    }

    async fetch(request: Request): Promise<Response> {
      const path = new URL(request.url).pathname;
      const { storage } = this.#state;
      if (path === "/start" && request.method === "POST") {
        if ((await storage.getAlarm()) === null) await storage.setAlarm(Date.now() + everyMs);
        return Response.json(await this.#read());
      }
      if (path === "/last" && request.method === "GET") return Response.json(await this.#read());
      return new Response("keywardSchedule: POST /start or GET /last", { status: 404 });
    }

    async alarm(): Promise<void> {
      // The next run first: whatever this one does, the schedule goes on.
      await this.#state.storage.setAlarm(Date.now() + everyMs);
      let last: ScheduleState["last"];
      try {
        const keyward = await options.keyward(this.#env);
        try {
          last = await runBackgroundWork(keyward);
        } finally {
          await keyward.close();
        }
      } catch (error) {
        last = { failed: error instanceof Error ? error.message : String(error), at: Date.now() };
      }
      const failed = "failed" in last ? [last.failed] : failedTasks(last);
      if (failed.length > 0) console.error(`keyward: a scheduled run failed: ${failed.join("; ")}`);
      this.#state.storage.sql.exec(
        "INSERT INTO schedule_runs (id, runs, last) VALUES (1, 1, ?1) ON CONFLICT (id) DO UPDATE SET runs = runs + 1, last = ?1",
        JSON.stringify(last),
      );
    }

    async #read(): Promise<ScheduleState> {
      const row = this.#state.storage.sql
        .exec<{ runs: number; last: string }>("SELECT runs, last FROM schedule_runs WHERE id = 1")
        .toArray()[0];
      return {
        runs: row?.runs ?? 0,
        last: row === undefined ? null : (JSON.parse(row.last) as ScheduleState["last"]),
        nextAt: await this.#state.storage.getAlarm(),
      };
    }
  };
}

function failedTasks(run: BackgroundRun): string[] {
  return Object.entries(run.tasks).flatMap(([name, outcome]) =>
    "failed" in outcome ? [`${name}: ${outcome.failed}`] : [],
  );
}

/**
 * Starts the schedule if it is not running (sets the object's first alarm), and resolves with its
 * state. Cheap enough for every request; once per isolate is enough.
 */
export function startKeywardSchedule(namespace: ObjectNamespace): Promise<ScheduleState> {
  return scheduleCall(namespace, "/start", "POST");
}

/** The schedule's state: its runs so far, the latest one's outcome, when it fires next. */
export function readKeywardSchedule(namespace: ObjectNamespace): Promise<ScheduleState> {
  return scheduleCall(namespace, "/last", "GET");
}

async function scheduleCall(
  namespace: ObjectNamespace,
  path: string,
  method: string,
): Promise<ScheduleState> {
  const stub = namespace.get(namespace.idFromName(scheduleObjectName) as never);
  const response = await stub.fetch(`https://keyward.schedule${path}`, { method });
  return (await response.json()) as ScheduleState;
}
