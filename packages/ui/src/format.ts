/** Times as people read them, in the browser's own locale and time zone. */

export function formatDateTime(iso: string | null, locale?: string): string {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(locale, { dateStyle: "medium", timeStyle: "short" });
}

/** `Never` for a key no request has used yet. */
export function formatLastUse(iso: string | null, locale?: string): string {
  return iso ? formatDateTime(iso, locale) : "Never";
}

/** A grace period as people say it: "1 hour", "90 minutes", "7 days". */
export function formatDuration(seconds: number): string {
  const units: [number, string][] = [
    [86_400, "day"],
    [3_600, "hour"],
    [60, "minute"],
    [1, "second"],
  ];
  for (const [size, name] of units) {
    if (seconds >= size && seconds % size === 0) {
      const count = seconds / size;
      return `${count} ${name}${count === 1 ? "" : "s"}`;
    }
  }
  return `${seconds} seconds`;
}
