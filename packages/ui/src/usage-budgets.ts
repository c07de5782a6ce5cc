/**
 * The budgets of a key's usage report, when the server lists `budgets()` and the key has one:
 * per budget (the key's, its own, the one its owner's keys share) what was spent, what unsettled
 * holds take now, and what is left, "20 spent · 30 held · 50 left of 100 this day".
 */
import { html, nothing, type TemplateResult } from "lit";
import { formatDateTime } from "./format.js";
import { fill, type KeywardMessages } from "./messages.js";
import type { BudgetStanding, UsageReport } from "./types.js";

export function usageBudgets(
  report: UsageReport,
  labels: KeywardMessages["labels"],
  locale: string | undefined,
): TemplateResult | typeof nothing {
  const budgets = report.budgets;
  if (!budgets) return nothing;
  const number = (value: number) => value.toLocaleString(locale);
  const periods = { day: labels.periodDay, week: labels.periodWeek, month: labels.periodMonth };
  const rows: [string, string, BudgetStanding | null][] = [
    ["key", labels.budgetKey, budgets.key],
    ["own", labels.budgetOwn, budgets.own],
    ["owner", labels.budgetOwner, budgets.owner],
  ];
  return html`<section class="usage-budgets" aria-label=${labels.budgets}>
    <h4>${labels.budgets}</h4>
    <dl class="usage-summary usage-limits">
      ${rows.map(([which, label, standing]) =>
        standing
          ? html`<div class="budget budget-${which}">
              <dt>${label}</dt>
              <dd>
                <span class="budget-standing">${fill(labels.budgetStanding, {
                  spent: number(standing.spent),
                  held: number(standing.held),
                  left: number(standing.left),
                  limit: number(standing.limit),
                  period: periods[standing.period] ?? standing.period,
                })}</span>
                <meter min="0" max=${standing.limit} value=${standing.spent + standing.held}
                  aria-hidden="true"></meter>
                <span class="muted">${fill(labels.budgetResets, {
                  time: formatDateTime(standing.resetsAt, locale),
                })}</span>
              </dd>
            </div>`
          : nothing,
      )}
    </dl>
  </section>`;
}
