/**
 * Aligned plain-text tables for people: a header row, then one row per item, each column as wide
 * as its widest cell. No colours and no box drawing, so the output pastes anywhere; scripts use
 * `--json` instead of parsing this. Every cell is made printable here, the one place all text
 * output passes through.
 */
import { printable } from "./printable.js";

export function formatTable(
  headers: readonly string[],
  givenRows: readonly (readonly string[])[],
): string {
  const rows = givenRows.map((row) => row.map(printable));
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n");
}

/** `label: value` lines with the values aligned, for one record. */
export function formatFields(fields: readonly (readonly [string, string])[]): string {
  const width = Math.max(...fields.map(([label]) => label.length)) + 1;
  return fields
    .map(([label, value]) => `${`${label}:`.padEnd(width)} ${printable(value)}`)
    .join("\n");
}
