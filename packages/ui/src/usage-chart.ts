/**
 * The usage charts: requests per UTC day as an inline SVG bar chart, and requests per endpoint as
 * labelled horizontal bars. No chart library: a few rectangles do, and they follow the theme's
 * custom properties. Each chart has a text alternative, so the numbers are not in the picture only.
 */
import { html, svg, type TemplateResult } from "lit";
import type { UsageReport } from "./types.js";

/** How many days the daily chart shows, ending today (UTC). */
export const chartDays = 14;

export interface DayCount {
  date: string;
  count: number;
}

/**
 * The last `days` UTC days ending at `today` (or at the report's latest day, if later: a clock a
 * little behind the server's), with 0 for days the report does not list.
 */
export function dailySeries(report: UsageReport, today: Date, days = chartDays): DayCount[] {
  const counts = new Map(report.daily.map((day) => [day.date, day.count]));
  // ISO dates sort as strings.
  const latest = [today.toISOString().slice(0, 10), ...report.daily.map((day) => day.date)]
    .sort()
    .at(-1)!;
  const end = Date.parse(`${latest}T00:00:00Z`);
  const series: DayCount[] = [];
  for (let offset = days - 1; offset >= 0; offset--) {
    const date = new Date(end - offset * 86_400_000).toISOString().slice(0, 10);
    series.push({ date, count: counts.get(date) ?? 0 });
  }
  return series;
}

/** The chart's height in CSS pixels; its width is the panel's, so labels keep their font size. */
const height = 160;
const axis = 20;
/** Room above the tallest bar for the maximum's label. */
const top = 18;

/** A share of the chart's width, as an SVG length. */
const percent = (share: number) => `${(share * 100).toFixed(3)}%`;

/**
 * Requests per day as bars. The SVG has no viewBox: x is in percent of its width and y in pixels,
 * so on a phone the bars narrow while the labels keep their size. Every other day is labelled,
 * counted back from today; on a narrow panel only every fourth (`chart-label-minor` is hidden).
 */
export function dailyChart(series: DayCount[], titleId: string): TemplateResult {
  const max = Math.max(1, ...series.map((day) => day.count));
  const total = series.reduce((sum, day) => sum + day.count, 0);
  const slot = 1 / series.length;
  const barWidth = slot * 0.7;
  const plot = height - axis;
  const busiest = series.reduce((best, day) => (day.count > best.count ? day : best), series[0]!);
  const summary =
    total === 0
      ? `No requests in the last ${series.length} days`
      : `${total} requests in the last ${series.length} days; busiest ${busiest.date} with ${busiest.count}`;
  return html`<svg
    part="chart"
    class="chart"
    height=${height}
    role="img"
    aria-labelledby=${titleId}
  >
    <title id=${titleId}>Requests per day (UTC). ${summary}.</title>
    <line class="chart-axis" x1="0" y1=${plot} x2="100%" y2=${plot}></line>
    <line class="chart-grid" x1="0" y1=${top} x2="100%" y2=${top}></line>
    <text class="chart-label" x="2" y=${top - 4}>${max}</text>
    ${series.map((day, index) => {
      const barHeight = (day.count / max) * (plot - top);
      const fromToday = series.length - 1 - index;
      const isToday = fromToday === 0;
      return svg`<rect class="chart-bar" x=${percent(index * slot + (slot - barWidth) / 2)}
          y=${plot - barHeight} width=${percent(barWidth)} height=${barHeight} rx="2"
          ><title>${day.date}: ${day.count}</title></rect>
        ${
          fromToday % 2 === 0
            ? svg`<text class=${fromToday % 4 === 0 ? "chart-label" : "chart-label chart-label-minor"}
                x=${isToday ? "100%" : percent(index * slot + slot / 2)} y=${height - 5}
                text-anchor=${isToday ? "end" : "middle"}>${day.date.slice(5)}</text>`
            : ""
        }`;
    })}
  </svg>`;
}

export function endpointChart(report: UsageReport): TemplateResult {
  if (report.endpoints.length === 0) {
    return html`<p class="muted">No requests with this key yet.</p>`;
  }
  const endpoints = [...report.endpoints].sort((a, b) => b.count - a.count);
  const max = Math.max(1, ...endpoints.map((endpoint) => endpoint.count));
  return html`<ul class="endpoints" aria-label="Requests per endpoint">
    ${endpoints.map(
      (endpoint) => html`<li>
        <span class="endpoint-name"><code>${endpoint.method} ${endpoint.route}</code></span>
        <svg class="endpoint-bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true">
          <rect class="chart-bar" x="0" y="0" width=${(endpoint.count / max) * 100} height="8" rx="1"></rect>
        </svg>
        <span class="endpoint-count">${endpoint.count}</span>
      </li>`,
    )}
  </ul>`;
}
