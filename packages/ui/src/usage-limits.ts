/** The quota and credits of a key's usage report: "2 / 3 requests this month", "4 left". */
import { html, nothing, type TemplateResult } from "lit";
import { formatDateTime } from "./format.js";
import { fill, type KeywardMessages } from "./messages.js";
import type { CalendarPeriod, UsageReport } from "./types.js";

export function usageLimits(
  report: UsageReport,
  labels: KeywardMessages["labels"],
  locale: string | undefined,
): TemplateResult | typeof nothing {
  const { quota, credits } = report;
  if (!quota && !credits) return nothing;
  const number = (value: number) => value.toLocaleString(locale);
  const periods = { day: labels.periodDay, week: labels.periodWeek, month: labels.periodMonth };
  const period = (name: CalendarPeriod) => periods[name] ?? name;
  return html`<dl class="usage-summary usage-limits">
    ${
      quota
        ? html`<div class="usage-quota">
            <dt>${labels.quota}</dt>
            <dd>
              <span class="quota-used">${fill(labels.quotaUsed, {
                used: number(quota.limit - quota.remaining),
                limit: number(quota.limit),
                period: period(quota.period),
              })}</span>
              <meter min="0" max=${quota.limit} value=${quota.limit - quota.remaining}
                aria-hidden="true"></meter>
              <span class="muted">${fill(labels.quotaResets, {
                time: formatDateTime(quota.resetsAt, locale),
              })}</span>
            </dd>
          </div>`
        : nothing
    }
    ${
      credits
        ? html`<div class="usage-credits">
            <dt>${labels.credits}</dt>
            <dd>
              <span class="credits-remaining">${fill(labels.creditsRemaining, {
                remaining: number(credits.remaining),
              })}</span>
              <span class="muted">${
                credits.refill && credits.refillsAt
                  ? fill(labels.creditsRefill, {
                      amount: number(credits.refill.amount),
                      time: formatDateTime(credits.refillsAt, locale),
                    })
                  : labels.creditsNoRefill
              }</span>
            </dd>
          </div>`
        : nothing
    }
  </dl>`;
}
