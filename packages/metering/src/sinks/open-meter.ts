/**
 * OpenMeter as a sink: its ingest API takes CloudEvents (`POST {url}/api/v1/events`, a batch) and
 * deduplicates on source + id, so this is `cloudEvents` with OpenMeter's address and token, and
 * reconciliation through its meter query (`GET {url}/api/v1/meters/{slug}/query`, per subject).
 * The meter's slug is taken to be its event type, as `meters` maps it.
 */
import type { MeterSink, SinkTotal } from "../export/meter-sink.js";
import { type CloudEventsOptions, checkUrl, cloudEvents } from "./cloud-events.js";

export interface OpenMeterOptions extends Omit<CloudEventsOptions, "url" | "headers" | "name"> {
  /** OpenMeter's base URL: `https://openmeter.cloud`, or your own deployment's. */
  url: string;
  /** An API token (sent as `Authorization: Bearer …`); none for a deployment without auth. */
  token?: string;
  /** Names the sink's progress in the ledger (default `openmeter`). */
  name?: string;
}

export function openMeter(options: OpenMeterOptions): MeterSink {
  const base = checkUrl(options?.url, "openMeter").replace(/\/+$/, "");
  if (options.token !== undefined && (typeof options.token !== "string" || options.token === "")) {
    throw new TypeError("openMeter: `token` must be a non-empty string");
  }
  const headers: Record<string, string> = options.token
    ? { authorization: `Bearer ${options.token}` }
    : {};
  const sink = cloudEvents({
    ...options,
    url: `${base}/api/v1/events`,
    headers,
    name: options.name ?? "openmeter",
  });
  const types = Array.isArray(options.meters)
    ? Object.fromEntries(options.meters.map((meter) => [meter, meter]))
    : ((options.meters as Record<string, string> | undefined) ?? {
        requests: "requests",
        credits: "credits",
      });
  const send = options.fetch ?? fetch;
  const subjectOf = options.subject ?? ((ownerId: string) => ownerId);
  return {
    ...sink,
    async totals(owners, from, to) {
      const totals: SinkTotal[] = [];
      for (const ownerId of owners) {
        const subject = await subjectOf(ownerId);
        for (const [meter, slug] of Object.entries(types) as [string, string][]) {
          const query = new URLSearchParams({
            subject,
            from: new Date(from).toISOString(),
            to: new Date(to).toISOString(),
          });
          const response = await send(
            `${base}/api/v1/meters/${encodeURIComponent(slug)}/query?${query}`,
            {
              headers,
            },
          );
          if (!response.ok)
            throw new Error(`OpenMeter answered ${response.status} to a meter query`);
          const body = (await response.json()) as { data?: { value?: number }[] };
          const total = (body.data ?? []).reduce((sum, row) => sum + (row.value ?? 0), 0);
          totals.push({ ownerId, meter, total });
        }
      }
      return totals;
    },
  };
}
