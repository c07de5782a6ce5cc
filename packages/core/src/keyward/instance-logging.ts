/**
 * Where one instance reports: its logger (`config.logger`: the console by default, `false` for
 * none, or a structured logger), and `reportFailure`, which logs a failure Keyward answered for
 * (a repeated one summarised, never once per request) and calls the host's `onError`.
 */
import type { Clock } from "../clock.js";
import { consoleLogger, type KeywardLogger, silentLogger } from "../logging/logger.js";
import { repeatFilter } from "../logging/repeat-filter.js";
import { requestIdOf } from "../logging/request-id.js";
import { fromStructuredLogger, isStructuredLogger } from "../logging/structured-logger.js";
import type { KeywardConfig } from "./config.js";

export interface InstanceLogging {
  logger: KeywardLogger;
  reportFailure(message: string, cause: unknown, request?: Request): void;
}

export function instanceLogging(
  config: Pick<KeywardConfig, "logger" | "onError">,
  clock: Clock,
): InstanceLogging {
  const logger =
    config.logger === false
      ? silentLogger
      : isStructuredLogger(config.logger)
        ? fromStructuredLogger(config.logger)
        : (config.logger ?? consoleLogger);
  const repeats = repeatFilter();
  const reportFailure = (message: string, cause: unknown, request?: Request) => {
    // A failing logger or hook must not turn a handled failure into a crash.
    try {
      const suffix = repeats.admit(message, cause, clock.now());
      if (suffix !== null) {
        const requestId = requestIdOf(request);
        if (requestId === undefined) logger.error(`${message}${suffix}`, cause);
        else logger.error(`${message}${suffix}`, cause, { requestId });
      }
    } catch {}
    try {
      config.onError?.(cause, request);
    } catch {}
  };
  return { logger, reportFailure };
}
