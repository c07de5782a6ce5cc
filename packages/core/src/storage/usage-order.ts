/** The order `UsageStore.read` promises, kept in one place so every store reports alike. */
import { compareCodeUnits } from "./code-unit-order.js";
import type { KeyUsage } from "./usage-store.js";

type EndpointUsage = KeyUsage["endpoints"][number];
type DailyUsage = KeyUsage["daily"][number];

/** Busiest endpoint first; ties by method, then route, in code-unit order. */
export function compareEndpointUsage(a: EndpointUsage, b: EndpointUsage): number {
  return (
    b.count - a.count || compareCodeUnits(a.method, b.method) || compareCodeUnits(a.route, b.route)
  );
}

/** Oldest day first (`YYYY-MM-DD` sorts by date in code-unit order). */
export function compareDailyUsage(a: DailyUsage, b: DailyUsage): number {
  return compareCodeUnits(a.date, b.date);
}

/**
 * Sorts a usage report's `endpoints` and `daily` in place into the order `UsageStore.read`
 * promises, and returns it. A store collects the rows in whatever order its storage gives them and
 * calls this last, so that every store answers in the same order.
 *
 * @example
 * return sortKeyUsage({ keyId, totalRequests, lastUsedAt, endpoints, daily });
 */
export function sortKeyUsage(report: KeyUsage): KeyUsage {
  report.endpoints.sort(compareEndpointUsage);
  report.daily.sort(compareDailyUsage);
  return report;
}
