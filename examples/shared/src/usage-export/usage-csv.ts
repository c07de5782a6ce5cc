/**
 * Daily counts as CSV (RFC 4180: CRLF line ends, a header row). Dates are `YYYY-MM-DD` and counts
 * whole numbers, so no field needs quoting, and none can start a spreadsheet formula.
 */
export function usageCsv(daily: readonly { date: string; count: number }[]): string {
  const rows = [
    "date,requests",
    ...[...daily]
      .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
      .map((day) => `${day.date},${day.count}`),
  ];
  return `${rows.join("\r\n")}\r\n`;
}
