/**
 * `--scope-map 'files:read=profile:read,files:delete='`: the scopes a source names that are not
 * this application's, each mapped to a configured scope or (nothing after "=") dropped, before the
 * records are checked. better-auth's permissions are `resource:action` pairs of the other system.
 */
import { badInput } from "../exit-codes.js";
import { quoted } from "../output/printable.js";
import type { SourceRecord } from "./source-records.js";

/** Parses the option: `from=to` pairs separated by commas; throws a bad-input error naming a bad pair. */
export function parseScopeMap(text: string | undefined): Map<string, string | null> {
  const map = new Map<string, string | null>();
  if (text === undefined) return map;
  for (const pair of text.split(",")) {
    if (pair.trim() === "") continue;
    const at = pair.indexOf("=");
    const from = at < 0 ? "" : pair.slice(0, at).trim();
    const to = at < 0 ? "" : pair.slice(at + 1).trim();
    if (at < 0 || from === "" || /[\s=]/.test(to) || map.has(from)) {
      throw badInput(
        `--scope-map takes 'source-scope=scope' pairs separated by commas (nothing after "=" drops the scope), each source scope once; got ${quoted(pair)}`,
      );
    }
    map.set(from, to === "" ? null : to);
  }
  return map;
}

/** Maps or drops the records' scopes in place; a scope mapped onto one already held is kept once. */
export function applyScopeMap(
  records: readonly SourceRecord[],
  map: ReadonlyMap<string, string | null>,
): void {
  if (map.size === 0) return;
  for (const { record } of records) {
    const scopes = record.scopes;
    if (!Array.isArray(scopes)) continue;
    const mapped: unknown[] = [];
    for (const scope of scopes) {
      const to = typeof scope === "string" && map.has(scope) ? map.get(scope) : scope;
      if (to !== null && !mapped.includes(to)) mapped.push(to);
    }
    record.scopes = mapped;
  }
}
