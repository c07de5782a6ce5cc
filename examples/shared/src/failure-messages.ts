/**
 * One line per failure, with its cause: what the demo prints when a store is unreachable at start
 * or fails while it runs, instead of a driver's error object with its stack and internals.
 */

/**
 * The error's message followed by its causes', on one line. An `AggregateError` (Node trying
 * `localhost` on IPv6 and IPv4) has an empty message of its own: its errors are the cause, so
 * those are shown.
 */
export function describeFailure(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 5; depth += 1) {
    parts.push(ownMessage(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return [...new Set(parts.filter(Boolean))].join(": ") || "unknown error";
}

function ownMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message) return error.message;
  if (error instanceof AggregateError && error.errors.length > 0) {
    return [...new Set(error.errors.map(ownMessage))].join("; ");
  }
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : error.name;
}

/**
 * A reporter that prints `label: cause` on stderr once per burst of failures: after one line it
 * stays quiet for `quietMs`, so a server that went away, and every reconnection attempt and
 * request failing meanwhile, shows as one line rather than dozens.
 */
export function failureReporter(label: string, quietMs = 10_000): (error: unknown) => void {
  let lastPrinted = Number.NEGATIVE_INFINITY;
  return (error) => {
    const now = performance.now();
    if (now - lastPrinted < quietMs) return;
    lastPrinted = now;
    console.error(`${label}: ${describeFailure(error)}`);
  };
}
