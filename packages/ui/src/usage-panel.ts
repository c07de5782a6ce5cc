/**
 * A key's details: totals, the quota and credits it counts against, its budgets, a chart per UTC
 * day, bars per endpoint, and its audit log.
 */
import { html, nothing, type TemplateResult } from "lit";
import { type AuditLogState, auditLog } from "./audit-log.js";
import { formatLastUse } from "./format.js";
import { fill, type KeywardMessages } from "./messages.js";
import type { KeyRecord, UsageReport } from "./types.js";
import { usageBudgets } from "./usage-budgets.js";
import { dailyChart, dailySeries, endpointChart } from "./usage-chart.js";
import { usageLimits } from "./usage-limits.js";

export interface UsagePanelOptions {
  key: KeyRecord;
  report: UsageReport | undefined;
  /** The audit log; undefined when the server keeps none (no `events`). */
  events: AuditLogState | undefined;
  messages: KeywardMessages;
  today: Date;
  locale: string | undefined;
  close(): void;
  moreEvents(): void;
}

export function usagePanel(options: UsagePanelOptions): TemplateResult {
  const { key, report, messages } = options;
  return html`<section class="usage" part="usage" aria-labelledby="usage-title">
    <div class="toolbar">
      <h3 id="usage-title" tabindex="-1">Usage of “${key.name}”</h3>
      <button type="button" @click=${options.close}>Close usage</button>
    </div>
    ${
      report
        ? html`<dl class="usage-summary">
            <div><dt>Total requests</dt><dd class="usage-total">${report.totalRequests}</dd></div>
            <div><dt>Last used</dt><dd>${formatLastUse(report.lastUsedAt, options.locale)}${
              report.lastUsedAddress
                ? html` <span class="muted last-used-address">${fill(messages.labels.lastUsedFrom, { address: report.lastUsedAddress })}</span>`
                : nothing
            }</dd></div>
          </dl>
          ${usageLimits(report, messages.labels, options.locale)}
          ${usageBudgets(report, messages.labels, options.locale)}
          <h4>Requests per day</h4>
          ${dailyChart(dailySeries(report, options.today), "usage-daily-title")}
          <h4>Requests per endpoint</h4>
          ${endpointChart(report)}`
        : html`<p class="muted" aria-busy="true">Loading usage…</p>`
    }
    ${
      options.events
        ? auditLog({
            state: options.events,
            messages,
            locale: options.locale,
            more: options.moreEvents,
          })
        : nothing
    }
  </section>`;
}
