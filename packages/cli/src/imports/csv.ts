/**
 * `keyward import csv <file>`: one key per row, with a header naming the columns: `key` (the
 * plaintext) or `hash` (SHA-256, hex unless `hash_encoding` says `base64url` or `base64`),
 * `owner` (a user id, or `organization:<id>`), `name`, `scopes` (separated by spaces), `tier`,
 * `expires_at`, and optionally `created_at`, `last_used_at` and `prefix`. Fields follow RFC 4180 (double quotes
 * around a field holding a comma, a quote doubled inside one).
 */
import { readFile } from "node:fs/promises";
import type { SourceRecords } from "./source-records.js";

const known = new Set([
  "key",
  "hash",
  "hash_encoding",
  "owner",
  "name",
  "scopes",
  "tier",
  "expires_at",
  "created_at",
  "last_used_at",
  "prefix",
]);

export async function readCsv(file: string): Promise<SourceRecords> {
  const rows = parseCsv(await readFile(file, "utf8"));
  const [header, ...body] = rows;
  if (!header) throw new Error(`${file} is empty: it needs a header row`);
  const columns = header.map((name) => name.trim().toLowerCase());
  const unknown = columns.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `${file}: unknown column ${unknown.map((name) => JSON.stringify(name)).join(", ")} (known: ${[...known].join(", ")})`,
    );
  }
  const result: SourceRecords = { records: [], unmapped: [] };
  body.forEach((cells, index) => {
    if (cells.length === 1 && cells[0] === "") return; // a blank line
    const where = `line ${index + 2}`;
    if (cells.length !== columns.length) {
      result.unmapped.push({
        source: where,
        reason: `${cells.length} fields; the header has ${columns.length}`,
      });
      return;
    }
    const row = Object.fromEntries(columns.map((name, i) => [name, cells[i]!]));
    const given = (name: string) =>
      row[name] === undefined || row[name] === "" ? undefined : row[name];
    const owner = given("owner");
    result.records.push({
      source: where,
      record: {
        ...(given("key") === undefined ? {} : { key: row.key }),
        ...(given("hash") === undefined
          ? {}
          : {
              hash: {
                value: row.hash,
                algorithm: "sha256",
                encoding: given("hash_encoding") ?? "hex",
              },
            }),
        owner: owner?.startsWith("organization:")
          ? { type: "organization", id: owner.slice("organization:".length) }
          : owner,
        ...(given("name") === undefined ? {} : { name: row.name }),
        scopes: (given("scopes") ?? "").split(" ").filter((scope) => scope !== ""),
        tier: given("tier"),
        expiresAt: given("expires_at") ?? null,
        ...(given("created_at") === undefined ? {} : { createdAt: row.created_at }),
        ...(given("last_used_at") === undefined ? {} : { lastUsedAt: row.last_used_at }),
        ...(given("prefix") === undefined ? {} : { prefix: row.prefix }),
      },
    });
  });
  return result;
}

/** RFC 4180 rows: quoted fields may hold commas, doubled quotes and line breaks. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text; // a BOM from spreadsheets
  for (let i = 0; i < input.length; i++) {
    const char = input[i]!;
    if (quoted) {
      if (char === '"' && input[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === "") quoted = true;
    else if (char === ",") {
      row.push(field);
      field = "";
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && input[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += char;
  }
  if (quoted) throw new Error("a quoted field is not closed");
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
