import { parseDuration } from "@keyward/core/toolkit";
import type { MeterSink } from "./export/meter-sink.js";
import type { UsageLedger } from "./ledger/usage-ledger.js";

export interface MeteringConfig {
  /**
   * Where usage is kept: `postgresLedger(...)` or `memoryLedger()`. Without
   * it, the store's own `ledger` part, when it has one.
   */
  ledger?: UsageLedger;
  /** Where closed windows go; none: usage is kept (and reconcilable) but not exported. */
  exporters?: readonly MeterSink[];
  /** The aggregation window: `"1m"` (the default), `"1h"`… at least one second, at most a day. */
  window?: string | number;
  /** How long after its end a window waits before export, for writes still in flight (default `"5s"`). */
  settle?: string | number;
  /** How often an instance tries to export (default `"15s"`); `false`: only `exportNow()`. */
  exportEvery?: string | number | false;
  /** Warns in the log when the oldest unexported window is older than this (default `"1h"`). */
  warnAfter?: string | number;
  /**
   * How long an instance holds the export lease without renewing it (default `"1m"`): after a
   * crash, another instance exports once it has passed.
   */
  leaseTtl?: string | number;
  /** The most windows one run sends to one sink (default 500). */
  maxWindowsPerRun?: number;
  /** Retry waits after failed runs: doubled from `initial` up to `max` (defaults `"1s"`, `"5m"`). */
  backoff?: { initial?: string | number; max?: string | number };
}

export interface ResolvedMeteringConfig {
  ledger: UsageLedger | undefined;
  exporters: readonly MeterSink[];
  windowMs: number;
  settleMs: number;
  exportEveryMs: number | false;
  warnAfterMs: number;
  leaseTtlMs: number;
  maxWindowsPerRun: number;
  backoff: { initialMs: number; maxMs: number };
}

/** Throws a `TypeError` naming the option for a malformed `config`. */
export function resolveMeteringConfig(config: MeteringConfig = {}): ResolvedMeteringConfig {
  if (config === null || typeof config !== "object") {
    throw new TypeError("metering: the configuration must be an object");
  }
  const duration = (name: string, value: string | number | undefined, fallback: string) => {
    try {
      return parseDuration(value ?? fallback);
    } catch (cause) {
      throw new TypeError(`metering: \`${name}\`: ${(cause as Error).message}`);
    }
  };
  const windowMs = duration("window", config.window, "1m");
  if (windowMs < 1000 || windowMs > 86_400_000 || 86_400_000 % windowMs !== 0) {
    throw new TypeError(
      "metering: `window` must be from 1s to 1d and divide a day evenly (1m, 5m, 1h…), so windows line up on every instance",
    );
  }
  const exporters = config.exporters ?? [];
  const names = new Set<string>();
  for (const sink of exporters) {
    if (sink === null || typeof sink?.send !== "function" || typeof sink.name !== "string") {
      throw new TypeError(
        "metering: each of `exporters` is a sink: stripeMeters(...), openMeter(...), cloudEvents(...)",
      );
    }
    if (names.has(sink.name)) {
      throw new TypeError(
        `metering: two exporters are named ${JSON.stringify(sink.name)}; give one another \`name\``,
      );
    }
    names.add(sink.name);
  }
  const maxWindowsPerRun = config.maxWindowsPerRun ?? 500;
  if (!Number.isSafeInteger(maxWindowsPerRun) || maxWindowsPerRun < 1) {
    throw new TypeError("metering: `maxWindowsPerRun` must be a whole number ≥ 1");
  }
  if (config.ledger !== undefined && typeof config.ledger?.add !== "function") {
    throw new TypeError("metering: `ledger` must be a ledger: postgresLedger(...), memoryLedger()");
  }
  return {
    ledger: config.ledger,
    exporters,
    windowMs,
    settleMs: duration("settle", config.settle, "5s"),
    exportEveryMs:
      config.exportEvery === false ? false : duration("exportEvery", config.exportEvery, "15s"),
    warnAfterMs: duration("warnAfter", config.warnAfter, "1h"),
    leaseTtlMs: duration("leaseTtl", config.leaseTtl, "1m"),
    maxWindowsPerRun,
    backoff: {
      initialMs: duration("backoff.initial", config.backoff?.initial, "1s"),
      maxMs: duration("backoff.max", config.backoff?.max, "5m"),
    },
  };
}
