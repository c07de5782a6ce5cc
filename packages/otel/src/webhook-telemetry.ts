/**
 * The webhook observer `otel()` subscribes to the bus's `webhook.*` topics with:
 * `keyward.webhook.deliveries` (attempts by `keyward.status`: delivered, retrying, dead) and
 * `keyward.webhook.backlog` (deliveries pending, read from the store's outbox when the SDK collects,
 * counted up to 10,000). Nothing is reported unless `webhooks()` is listed too.
 */

import type { WebhookObserver } from "@keyward/core";
import type { Meter, ObservableResult } from "@opentelemetry/api";
import { attributeNames, instrumentNames } from "./names.js";
import { Tally } from "./tally.js";

/** The most pending deliveries the backlog gauge counts per collection (one store query). */
export const backlogCountLimit = 10_000;

export interface WebhookTelemetry {
  observer: WebhookObserver;
  close(): void;
}

export function webhookTelemetry(meter: Meter | undefined): WebhookTelemetry {
  const attempts = new Tally((status) => ({ [attributeNames.status]: status }));
  const deliveries = meter?.createObservableCounter(instrumentNames.webhookDeliveries, {
    description: "Webhook delivery attempts, by how they ended: delivered, retrying or dead",
    unit: "{attempt}",
  });
  const reportAttempts = attempts.report.bind(attempts);
  deliveries?.addCallback(reportAttempts);
  const backlogGauge = meter?.createObservableGauge(instrumentNames.webhookBacklog, {
    description: `Webhook deliveries pending (counted up to ${backlogCountLimit})`,
    unit: "{delivery}",
  });
  let readBacklog: ((max: number) => Promise<number>) | undefined;
  const reportBacklog = async (result: ObservableResult) => {
    if (readBacklog === undefined) return;
    result.observe(await readBacklog(backlogCountLimit));
  };
  backlogGauge?.addCallback(reportBacklog);
  return {
    observer: {
      attempted: (status) => attempts.add(status, "", "", ""),
      backlog: (read) => {
        readBacklog = read;
      },
    },
    close() {
      deliveries?.removeCallback(reportAttempts);
      backlogGauge?.removeCallback(reportBacklog);
    },
  };
}
