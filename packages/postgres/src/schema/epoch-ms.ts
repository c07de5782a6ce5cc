/**
 * Times are `timestamptz` in the database and epoch milliseconds in Keyward. The conversions are
 * exact for every time a JavaScript `Date` can hold: whole seconds and the millisecond remainder
 * are converted separately, so no float rounding can move a value by a millisecond, and reads go
 * through `numeric` (what `extract` returns since PostgreSQL 14).
 */

/** SQL turning the epoch-ms parameter `param` (e.g. `$3`) into a timestamptz; null stays null. */
export function fromEpochMs(param: string): string {
  return `(to_timestamp(div(${param}::bigint, 1000)) + mod(${param}::bigint, 1000) * interval '1 millisecond')`;
}

/** SQL turning a timestamptz expression into epoch ms, as a float8 so every driver returns a number. */
export function toEpochMs(expression: string): string {
  return `floor(extract(epoch from ${expression}) * 1000)::float8`;
}

/** A time parameter, checked: whole milliseconds are what the columns hold. */
export function epochMsParam(value: number | null, field: string): number | null {
  if (value === null) return null;
  if (!Number.isSafeInteger(value)) {
    throw new TypeError(
      `${field} must be whole milliseconds since the epoch, got ${String(value)}`,
    );
  }
  return value;
}
