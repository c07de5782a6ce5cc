/**
 * Any CloudEvents sink over HTTP (structured batch mode, `application/cloudevents-batch+json`),
 * with plain `fetch`. Each window's usage is one CloudEvent whose `id` is the send's deterministic
 * identifier and whose `source` is fixed, so a sink that deduplicates on source + id (as the
 * CloudEvents spec says a consumer may: "Consumers MAY assume that Events with identical source
 * and id are duplicates") drops a repeat.
 *
 * The event: `type` the meter's event type, `subject` the owner (or what `subject` maps it to),
 * `time` the window's start, `data` `{ value, meter, window_start, window_end }`.
 */
import type { MeterEvent, MeterSink, SendOutcome } from "../export/meter-sink.js";

export interface CloudEventsOptions {
  /** Where batches are POSTed. */
  url: string;
  /** Ledger meter → CloudEvent `type` (default: the meter's own name, for `requests` and `credits`). */
  meters?: Readonly<Record<string, string>> | readonly string[];
  /** The events' `source` (default `keyward`): part of what a sink deduplicates on. */
  source?: string;
  /** The subject billed for an owner's usage (default: the owner id). */
  subject?: (ownerId: string) => string | Promise<string>;
  /** Sent with every request (an `Authorization`, say). */
  headers?: Readonly<Record<string, string>>;
  /** How long the sink deduplicates ids (default: forever, as far as this exporter knows). */
  dedupWindowMs?: number;
  /** Names the sink's progress in the ledger (default `cloudevents`). */
  name?: string;
  /** The window length, for `data.window_end` (set by `metering`'s default, 1 minute, otherwise). */
  windowMs?: number;
  /** Per request, before it is sent as lost (default 10 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function cloudEvents(options: CloudEventsOptions): MeterSink {
  const url = checkUrl(options?.url, "cloudEvents");
  const types = meterTypes(options.meters ?? ["requests", "credits"]);
  const source = options.source ?? "keyward";
  const subjectOf = options.subject ?? ((ownerId: string) => ownerId);
  const send = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const windowMs = options.windowMs ?? 60_000;

  return {
    name: options.name ?? "cloudevents",
    meters: Object.keys(types),
    ...(options.dedupWindowMs === undefined ? {} : { dedupWindowMs: options.dedupWindowMs }),
    batchSize: 100,
    async send(events) {
      const body = await Promise.all(
        events.map(async (event: MeterEvent) => ({
          specversion: "1.0",
          id: event.identifier,
          source,
          type: types[event.meter]!,
          subject: await subjectOf(event.ownerId),
          time: new Date(event.windowStart).toISOString(),
          datacontenttype: "application/json",
          data: {
            value: event.value,
            meter: event.meter,
            window_start: new Date(event.windowStart).toISOString(),
            window_end: new Date(event.windowStart + windowMs).toISOString(),
          },
        })),
      );
      const outcome = await post(send, url, body, options.headers ?? {}, timeoutMs);
      return events.map(() => outcome);
    },
  };
}

/** One POST's outcome, for every event of the batch. */
export async function post(
  send: typeof fetch,
  url: string,
  body: unknown,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<SendOutcome> {
  let response: Response;
  try {
    response = await send(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/cloudevents-batch+json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (cause) {
    // No answer: the sink may hold the events.
    return { kind: "uncertain", error: cause instanceof Error ? cause.message : String(cause) };
  }
  const text = await response.text().catch(() => "");
  if (response.ok) return { kind: "acknowledged" };
  const error = `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ""}`;
  const retryAfter = Number(response.headers.get("retry-after"));
  const retryAfterMs =
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined;
  if (response.status === 429 || response.status === 401 || response.status === 403) {
    return retryAfterMs === undefined
      ? { kind: "retry", error }
      : { kind: "retry", error, retryAfterMs };
  }
  if (response.status >= 500 || response.status === 408) return { kind: "uncertain", error };
  return { kind: "rejected", error };
}

export function checkUrl(url: unknown, who: string): string {
  if (typeof url !== "string" || !/^https?:\/\//.test(url)) {
    throw new TypeError(`${who}: \`url\` must be an http(s) URL`);
  }
  try {
    return new URL(url).toString();
  } catch {
    throw new TypeError(`${who}: \`url\` must be an http(s) URL`);
  }
}

function meterTypes(
  meters: Readonly<Record<string, string>> | readonly string[],
): Record<string, string> {
  const entries = Array.isArray(meters)
    ? meters.map((meter) => [meter, meter] as const)
    : Object.entries(meters as Record<string, string>);
  if (entries.length === 0) throw new TypeError("cloudEvents: `meters` names at least one meter");
  for (const [meter, type] of entries) {
    if (typeof type !== "string" || type.length === 0 || type.length > 200) {
      throw new TypeError(
        `cloudEvents: the event type of meter ${JSON.stringify(meter)} must be a non-empty string`,
      );
    }
  }
  return Object.fromEntries(entries);
}
