/** The fields of a usage hash (see `lua/usage.ts`) and how a read turns them into a `KeyUsage`. */
import type { KeyUsage } from "@keyward/core";
import { sortKeyUsage } from "@keyward/core/toolkit";

export const endpointField = (method: string, route: string): string => `e:${method} ${route}`;
export const dayField = (day: string): string => `d:${day}`;

/** The fields text in a `use` field's "<at> <fields>", or undefined for anything else. */
export function useFieldsOfRecord(record: string | null | undefined): string | undefined {
  if (typeof record !== "string") return undefined;
  const space = record.indexOf(" ");
  return space > 0 && space < record.length - 1 ? record.slice(space + 1) : undefined;
}

/** A flat `HGETALL` reply → the report, sorted as every Keyward store sorts it. */
export function toKeyUsage(keyId: string, flat: readonly string[]): KeyUsage {
  let lastUsedAt: number | null = null;
  let useFields: string | undefined;
  let totalRequests = 0;
  const endpoints: KeyUsage["endpoints"] = [];
  const daily: KeyUsage["daily"] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const field = flat[i]!;
    const value = Number(flat[i + 1]);
    if (field === "last") {
      lastUsedAt = value;
    } else if (field === "use") {
      useFields = useFieldsOfRecord(flat[i + 1]);
    } else if (field === "pruned") {
      // Days folded away by retention still count in the total.
      totalRequests += value;
    } else if (field.startsWith("d:")) {
      daily.push({ date: field.slice(2), count: value });
      totalRequests += value;
    } else if (field.startsWith("e:")) {
      const space = field.indexOf(" ", 2);
      endpoints.push({
        method: field.slice(2, space),
        route: field.slice(space + 1),
        count: value,
      });
    }
  }
  return sortKeyUsage({
    keyId,
    totalRequests,
    lastUsedAt,
    ...(useFields === undefined ? {} : { useFields }),
    endpoints,
    daily,
  });
}
