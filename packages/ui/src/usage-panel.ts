/** The usage of one key: totals, a chart per UTC day and bars per endpoint. */
import { html, type TemplateResult } from "lit";
import { formatLastUse } from "./format.js";
import type { KeyRecord, UsageReport } from "./types.js";
import { dailyChart, dailySeries, endpointChart } from "./usage-chart.js";

export interface UsagePanelOptions {
  key: KeyRecord;
  report: UsageReport | undefined;
  today: Date;
  locale: string | undefined;
  close(): void;
}

export function usagePanel(options: UsagePanelOptions): TemplateResult {
  const { key, report } = options;
  return html`<section class="usage" part="usage" aria-labelledby="usage-title">
    <div class="toolbar">
      <h3 id="usage-title" tabindex="-1">Usage of “${key.name}”</h3>
      <button type="button" @click=${options.close}>Close usage</button>
    </div>
    ${
      report
        ? html`<dl class="usage-summary">
            <div><dt>Total requests</dt><dd class="usage-total">${report.totalRequests}</dd></div>
            <div><dt>Last used</dt><dd>${formatLastUse(report.lastUsedAt, options.locale)}</dd></div>
          </dl>
          <h4>Requests per day</h4>
          ${dailyChart(dailySeries(report, options.today), "usage-daily-title")}
          <h4>Requests per endpoint</h4>
          ${endpointChart(report)}`
        : html`<p class="muted" aria-busy="true">Loading usage…</p>`
    }
  </section>`;
}
