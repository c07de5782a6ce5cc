/**
 * `keyward.imports.importKeys(records)`: existing keys into the store, all or nothing. Every record
 * is checked first, and one refused record refuses the call: nothing is written and the report says
 * which records and why. A call that passes is one atomic write of the store (`importKeys`), which
 * skips the keys an earlier import already stored, so running an import again changes nothing.
 */
import type { ValidationIssue } from "../errors/validation-issue.js";
import type { KeywardContext } from "../keyward/context.js";
import type { StoredKey } from "../storage/key-store.js";
import { checkImportRecord, type ImportRecordSchema } from "./import-record.js";
import { importedKey } from "./imported-key.js";
import type { LegacyHashers } from "./legacy-lookup.js";

export interface ImportKeysOptions {
  /** Check every record and count what would be imported, writing nothing. */
  dryRun?: boolean;
}

export interface ImportReport {
  dryRun: boolean;
  /** How many records the call was given. */
  received: number;
  /** Keys created by this call (by a dry run: that it would create). */
  imported: number;
  /** Keys already in the store from an earlier import: left exactly as they are. */
  unchanged: number;
  /** The records refused, by their place in the list, with every problem; any → nothing written. */
  refused: { index: number; issues: ValidationIssue[] }[];
  /** The ids of the keys created (would be, by a dry run). */
  importedIds: string[];
}

/** How many ids a dry run asks the store about at once. */
const probeConcurrency = 64;

/** What `check` finds: the records `importKeys` would refuse, without asking the store. */
export interface ImportCheck {
  received: number;
  refused: ImportReport["refused"];
}

export function createImportKeys(
  ctx: KeywardContext,
  schema: ImportRecordSchema,
  legacy: LegacyHashers,
) {
  /** Every record checked and made a stored key, or refused with its problems. */
  const prepare = (records: readonly unknown[], now: number) => {
    if (!Array.isArray(records)) {
      throw new TypeError("importKeys(records): records must be an array of import records");
    }
    const keys: StoredKey[] = [];
    const refused: ImportReport["refused"] = [];
    const placeOfId = new Map<string, number>();
    records.forEach((input, index) => {
      const checked = checkImportRecord(schema, input);
      if (!checked.ok) {
        refused.push({ index, issues: checked.issues });
        return;
      }
      if (checked.record.credits && !ctx.layeredLimits) {
        refused.push({
          index,
          issues: [
            {
              loc: ["credits"],
              msg: "Value error, this store's rate limits cannot apply credits (`consumeLayers`)",
              type: "value_error",
            },
          ],
        });
        return;
      }
      const key = importedKey(checked.record, {
        keyward: ctx.hasher,
        legacy,
        environment: ctx.environments.defaultName,
        now,
      });
      const earlier = placeOfId.get(key.id);
      if (earlier !== undefined) {
        refused.push({
          index,
          issues: [
            { loc: [], msg: `Value error, the same key as record ${earlier}`, type: "value_error" },
          ],
        });
        return;
      }
      placeOfId.set(key.id, index);
      keys.push(key);
    });
    return { keys, refused };
  };

  const check = (records: readonly unknown[]): ImportCheck => ({
    received: Array.isArray(records) ? records.length : 0,
    refused: prepare(records, ctx.clock.now()).refused,
  });

  const importKeys = async (
    records: readonly unknown[],
    options: ImportKeysOptions = {},
  ): Promise<ImportReport> => {
    const dryRun = options.dryRun === true;
    const { keys, refused } = prepare(records, ctx.clock.now());
    const report = { dryRun, received: records.length, refused };
    if (refused.length > 0) return { ...report, imported: 0, unchanged: 0, importedIds: [] };
    if (dryRun) {
      const fresh = await freshIds(ctx, keys);
      return {
        ...report,
        imported: fresh.length,
        unchanged: keys.length - fresh.length,
        importedIds: fresh,
      };
    }
    const created = keys.length === 0 ? [] : await ctx.keys.importKeys!(keys);
    return {
      ...report,
      imported: created.length,
      unchanged: keys.length - created.length,
      importedIds: created,
    };
  };

  return { importKeys, check };
}

/** The ids among `keys` the store does not hold yet. */
async function freshIds(ctx: KeywardContext, keys: readonly StoredKey[]): Promise<string[]> {
  const fresh: string[] = [];
  for (let start = 0; start < keys.length; start += probeConcurrency) {
    const slice = keys.slice(start, start + probeConcurrency);
    const found = await Promise.all(slice.map((key) => ctx.keys.findById(key.id)));
    slice.forEach((key, i) => {
      if (found[i] === null) fresh.push(key.id);
    });
  }
  return fresh;
}
