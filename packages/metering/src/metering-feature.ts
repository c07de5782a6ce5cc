/**
 * The metering feature: every served request becomes usage in the ledger (`served-usage.ts`), and
 * an exporter on every instance (one at a time, by a lease) sends closed windows to the sinks.
 *
 * On the instance's event bus (for `@keyward/otel`'s metrics, or the host's own):
 * | topic                    | message                                                    |
 * |--------------------------|------------------------------------------------------------|
 * | `metering.exported`      | `ExportRun`: one run's events acknowledged, retried, set aside, per sink |
 * | `metering.backlog`       | `{ read() }`, once built: the closed windows waiting, per sink |
 * | `metering.ledger_failed` | `{}`: a served request whose usage the ledger did not keep |
 */
import { randomUUID } from "node:crypto";
import { type KeywardFeature, systemClock } from "@keyward/core";
import { currentWindow } from "./current-window.js";
import { createExporter, type ExportRun } from "./export/exporter.js";
import { checkAdditions } from "./ledger/check-additions.js";
import { isRidingLedger } from "./ledger/redis-ledger.js";
import type { Adjustment, UsageLedger } from "./ledger/usage-ledger.js";
import { meteredUsageSection } from "./metered-usage-section.js";
import { type MeteringConfig, resolveMeteringConfig } from "./metering-config.js";
import { type Reconciliation, reconcile } from "./reconcile.js";
import { servedUsage } from "./served-usage.js";

export interface MeteringStatus {
  readonly sinks: readonly {
    readonly sink: string;
    /** Closed windows not acknowledged yet (counted up to 10,000). */
    readonly backlog: number;
    /** The oldest of them, ISO 8601, or null. */
    readonly oldestUnexported: string | null;
    readonly lastError: { readonly message: string; readonly at: string } | null;
  }[];
  /** Served requests whose usage the ledger failed to keep, since this instance started. */
  readonly ledgerFailures: number;
}

export interface MeteringApi {
  /**
   * Adds a host's own usage (`"llm_tokens"`, 1234) to an owner's current window, exported as the
   * sinks map that meter. Resolves once the ledger holds it.
   */
  record(ownerId: string, meter: string, amount: number): Promise<void>;
  /** One export run now (false when another instance holds the export lease). */
  exportNow(): Promise<ExportRun[] | false>;
  status(): Promise<MeteringStatus>;
  /** Usage that no sink could take (too late, refused, unconfirmed), never dropped in silence. */
  adjustments(): Promise<Adjustment[]>;
  /** The ledger against each sink that can report totals, for `YYYY-MM`. */
  reconcile(period: string): Promise<Reconciliation>;
  /** The ledger in use. */
  readonly ledger: UsageLedger;
}

const backlogCount = 10_000;

/** Throws a `TypeError` naming the option for a malformed `config`. */
export function metering(config: MeteringConfig = {}): KeywardFeature<"metering", MeteringApi> {
  const resolved = resolveMeteringConfig(config);
  const served = servedUsage();
  const ledgerOf = (store: object): UsageLedger | undefined =>
    resolved.ledger ?? (store as { ledger?: UsageLedger }).ledger;
  // The charge step only where the usage may ride the limits' script: a ledger that can (a
  // redisLedger), or a store's own ledger, known at install. Listed, a charge step has every
  // request's limit plan built to be shown to it, which a ledger written after the charge (memory,
  // PostgreSQL) has no use for.
  const mayRide = resolved.ledger === undefined || isRidingLedger(resolved.ledger);
  return {
    name: "metering",
    requires: [
      {
        has: (store) => ledgerOf(store) !== undefined,
        missing:
          "a usage ledger: pass `ledger` to metering() (postgresLedger({ client }), memoryLedger()), or a store with a `ledger` part",
      },
    ],
    extends: {
      verify: {
        ...(mayRide ? { charge: [served.chargeStep] } : {}),
        spent: [served.spendStep],
        around: [served.wrapper],
      },
    },
    install({ clock, random, log, store, bus, limits }) {
      const ledger = ledgerOf(store)!;
      const { logger } = log;
      let ledgerFailures = 0;
      const window = currentWindow({
        clock,
        windowMs: resolved.windowMs,
        timed: clock === systemClock,
      });
      // A Redis ledger rides the limits' script when the limits are on Redis and apply increments
      // (a shared store that applies them is Redis); otherwise it is written after the charge.
      const rides =
        isRidingLedger(ledger) &&
        store.rateLimits.shared === true &&
        limits.layered?.appliesIncrements === true;
      served.attach({
        ledger,
        window,
        ...(rides ? { riding: ledger } : {}),
        failed(cause) {
          ledgerFailures++;
          bus.publish("metering.ledger_failed", {});
          log.reportFailure("metering: the ledger did not keep a served request's usage", cause);
        },
      });
      const exporter = createExporter({
        ledger,
        sinks: resolved.exporters,
        windowMs: resolved.windowMs,
        settleMs: resolved.settleMs,
        clock,
        random,
        holder: randomUUID(),
        leaseTtlMs: resolved.leaseTtlMs,
        maxWindowsPerRun: resolved.maxWindowsPerRun,
        backoff: resolved.backoff,
        onRun(run) {
          bus.publish("metering.exported", run);
        },
      });
      const closedBefore = () => clock.now() - resolved.windowMs - resolved.settleMs + 1;
      const backlogOf = async () =>
        Promise.all(
          resolved.exporters.map(async (sink) => {
            const due = await ledger.due({
              sink: sink.name,
              meters: sink.meters,
              startedBefore: closedBefore(),
              limit: backlogCount,
            });
            return { sink: sink.name, windows: due.length, oldest: due[0]?.windowStart };
          }),
        );
      let lastWarning = Number.NEGATIVE_INFINITY;
      const warnIfBehind = async () => {
        const now = clock.now();
        if (now - lastWarning < resolved.warnAfterMs) return;
        for (const { sink, oldest } of await backlogOf()) {
          if (oldest === undefined || now - (oldest + resolved.windowMs) <= resolved.warnAfterMs)
            continue;
          lastWarning = now;
          const error = exporter.lastErrors().get(sink)?.message;
          logger.warn(
            `metering: the oldest window not exported to ${sink} started at ${new Date(oldest).toISOString()}${error ? ` (last error: ${error})` : ""}`,
          );
        }
      };
      const exportNow = async () => {
        const runs = await exporter.run();
        await warnIfBehind();
        return runs;
      };

      let timer: ReturnType<typeof setTimeout> | undefined;
      let running: Promise<unknown> | undefined;
      let closed = false;
      const schedule = () => {
        if (resolved.exportEveryMs === false || closed || resolved.exporters.length === 0) return;
        timer = setTimeout(() => {
          running = exportNow()
            .catch((cause) => log.reportFailure("metering: an export run failed", cause))
            .finally(schedule);
        }, resolved.exportEveryMs);
        timer.unref?.();
      };
      schedule();

      const api: MeteringApi = {
        ledger,
        async record(ownerId, meter, amount) {
          const now = clock.now();
          const addition = { ownerId, meter, windowStart: now - (now % resolved.windowMs), amount };
          checkAdditions([addition]);
          await ledger.add([addition]);
        },
        exportNow,
        async status() {
          const backlog = await backlogOf();
          const errors = exporter.lastErrors();
          return {
            ledgerFailures,
            sinks: backlog.map(({ sink, windows, oldest }) => {
              const error = errors.get(sink);
              return {
                sink,
                backlog: windows,
                oldestUnexported: oldest === undefined ? null : new Date(oldest).toISOString(),
                lastError: error
                  ? { message: error.message, at: new Date(error.at).toISOString() }
                  : null,
              };
            }),
          };
        },
        adjustments: () => ledger.adjustments(),
        reconcile: (period) => reconcile(ledger, resolved.exporters, period),
      };
      return {
        api,
        // `metering` on a key's usage report: the owner's counts in the open window.
        usage: [meteredUsageSection(() => ledger, resolved.windowMs)],
        // Once every feature is installed, so `otel()` listed after this one hears it too.
        ready() {
          const read = async () =>
            (await backlogOf()).map(({ sink, windows }) => ({ sink, windows }));
          bus.publish("metering.backlog", { read });
        },
        async close() {
          closed = true;
          window.close();
          if (timer !== undefined) clearTimeout(timer);
          await running;
          await exporter.release().catch(() => {});
          for (const sink of resolved.exporters) await sink.close?.();
        },
      };
    },
  };
}
