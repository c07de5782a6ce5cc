/**
 * Strict ISO 8601 / RFC 3339 date-time with an explicit offset, as `expiresAt` requires.
 * `Date.parse` alone would accept forms like "March 7, 2030" and silently roll "2030-02-30" over.
 */
const isoDateTime =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

export type DateTimeParse =
  | { ok: true; epochMs: number }
  | { ok: false; reason: "format" | "timezone" };

export function parseIsoDateTime(text: string): DateTimeParse {
  const match = isoDateTime.exec(text);
  if (!match) return { ok: false, reason: "format" };
  const [, year, month, day, hour, minute, second = "0", offset] = match;
  if (!offset) return { ok: false, reason: "timezone" };
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return { ok: false, reason: "format" };
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) {
    return { ok: false, reason: "format" };
  }
  const epochMs = Date.parse(text.replace(" ", "T").replace(/([+-]\d{2})(\d{2})$/, "$1:$2"));
  return Number.isNaN(epochMs) ? { ok: false, reason: "format" } : { ok: true, epochMs };
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
