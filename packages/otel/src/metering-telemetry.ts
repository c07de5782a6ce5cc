/**
 * The metering observer `otel()` subscribes to the bus's `metering.*` topics with:
 * `keyward.metering.exports` (events by `keyward.status`: acknowledged, retried, set_aside; and
 * `keyward.sink`), `keyward.metering.backlog` (closed windows not yet acknowledged, per sink, read
 * from the ledger when the SDK collects, counted up to 10,000) and `keyward.metering.ledger_failures`
 * (served requests whose usage the ledger did not keep). Nothing is reported unless `metering()`
 * (`@keyward/metering`) is listed too.
 */
import type { Meter, ObservableResult } from "@opentelemetry/api";
import { attributeNames, instrumentNames } from "./names.js";
import { Tally } from "./tally.js";

export interface MeteringRun {
  sink: string;
  acknowledged: number;
  retried: number;
  setAside: number;
}

export interface MeteringTelemetry {
  exported(run: MeteringRun): void;
  backlog(read: () => Promise<{ sink: string; windows: number }[]>): void;
  ledgerFailed(): void;
  close(): void;
}

export function meteringTelemetry(meter: Meter | undefined): MeteringTelemetry {
  const outcomes = new Tally((status, sink) => ({
    [attributeNames.status]: status,
    [attributeNames.sink]: sink,
  }));
  const exports = meter?.createObservableCounter(instrumentNames.meteringExports, {
    description: "Usage events sent to billing sinks, by outcome: acknowledged, retried, set_aside",
    unit: "{event}",
  });
  const reportExports = outcomes.report.bind(outcomes);
  exports?.addCallback(reportExports);
  let failures = 0;
  const failuresCounter = meter?.createObservableCounter(instrumentNames.meteringLedgerFailures, {
    description: "Served requests whose usage the ledger did not keep",
    unit: "{request}",
  });
  const reportFailures = (result: ObservableResult) => result.observe(failures);
  failuresCounter?.addCallback(reportFailures);
  const backlogGauge = meter?.createObservableGauge(instrumentNames.meteringBacklog, {
    description: "Closed usage windows not yet acknowledged by their sink (counted up to 10,000)",
    unit: "{window}",
  });
  let readBacklog: (() => Promise<{ sink: string; windows: number }[]>) | undefined;
  const reportBacklog = async (result: ObservableResult) => {
    if (readBacklog === undefined) return;
    for (const { sink, windows } of await readBacklog()) {
      result.observe(windows, { [attributeNames.sink]: sink });
    }
  };
  backlogGauge?.addCallback(reportBacklog);
  /** Adds `count` events of one outcome: the tally counts one at a time. */
  const add = (status: string, sink: string, count: number) => {
    for (let index = 0; index < count; index++) outcomes.add(status, sink, "", "");
  };
  return {
    exported(run) {
      add("acknowledged", run.sink, run.acknowledged);
      add("retried", run.sink, run.retried);
      add("set_aside", run.sink, run.setAside);
    },
    backlog(read) {
      readBacklog = read;
    },
    ledgerFailed() {
      failures += 1;
    },
    close() {
      exports?.removeCallback(reportExports);
      failuresCounter?.removeCallback(reportFailures);
      backlogGauge?.removeCallback(reportBacklog);
    },
  };
}
