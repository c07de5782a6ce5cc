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
