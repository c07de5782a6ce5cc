/**
 * `keyward.imports.importKeys(records)`: existing keys into the store, all or nothing. An import is
 * a create: every record is checked as create checks a body, against this instance's configuration
 * (would `verify` ever find it?) and against the store and create's policies (create-policies.ts).
 * One refused record refuses the call: nothing is written and the report says which records and
 * why. A call that passes is one atomic write of the store (`importKeys`), which skips the keys an
 * earlier import already stored, so running an import again changes nothing; each key it creates
 * writes `key.imported` (with `events()` listed, and so a webhook).
 */
import type { ValidationIssue } from "../../errors/validation-issue.js";
import { operatorActor, systemActor } from "../../event-model/event-actor.js";
import type { FeatureKernel } from "../../feature-interface/feature-kernel.js";
import type { Owner } from "../../keys/owner.js";
import { applyCreatePolicies, type PreparedImport } from "./create-policies.js";
import { checkImportRecord, type ImportRecordSchema } from "./import-record.js";
import { importedKey } from "./imported-key.js";
import type { LegacyHashers } from "./legacy-lookup.js";
import { unverifiableIssue, type VerifiableCheck } from "./verifiable.js";

export interface ImportKeysOptions {
  /** Check every record, against the store too, and count what would be imported, writing nothing. */
  dryRun?: boolean;
  /**
   * Leave out the records `verify` would never find (listed in `skipped`) instead of refusing the
   * call for them.
   */
  skipUnverifiable?: boolean;
  /** Whom the `key.imported` events name: the operator (default) or Keyward itself. */
  actor?: "operator" | "system";
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
  /** With `skipUnverifiable`: the records left out because `verify` would never find them. */
  skipped: { index: number; issues: ValidationIssue[] }[];
  /** The ids of the keys created (would be, by a dry run). */
  importedIds: string[];
  /**
   * The account tier recorded with each owner's new keys: the records' `accountTier`, else the
   * owner's recorded one, else (an owner with no key yet) the highest tier the call gives them.
   * Give it as the records' `accountTier` to write one import in several calls alike.
   */
  ownerTiers: { owner: Owner; tier: string }[];
}

/** What `check` finds: the records `importKeys` would refuse, without asking the store. */
export interface ImportCheck {
  received: number;
  refused: ImportReport["refused"];
  /** With `skipUnverifiable`: the records `importKeys` would leave out. */
  skipped: ImportReport["skipped"];
}

export function createImportKeys(
  ctx: FeatureKernel,
  schema: ImportRecordSchema,
  legacy: LegacyHashers,
  verifiable: VerifiableCheck,
) {
  /** Every record checked and made a stored key, or refused (or skipped) with its problems. */
  const prepare = (records: readonly unknown[], now: number, skipUnverifiable: boolean) => {
    if (!Array.isArray(records)) {
      throw new TypeError("importKeys(records): records must be an array of import records");
    }
    const prepared: PreparedImport[] = [];
    const refused: ImportReport["refused"] = [];
    const skipped: ImportReport["skipped"] = [];
    const placeOfId = new Map<string, number>();
    records.forEach((input, index) => {
      const checked = checkImportRecord(schema, input);
      if (!checked.ok) {
        refused.push({ index, issues: checked.issues });
        return;
      }
      const { record } = checked;
      const unverifiable = unverifiableIssue(record, verifiable);
      if (unverifiable !== null) {
        (skipUnverifiable ? skipped : refused).push({ index, issues: [unverifiable] });
        return;
      }
      if (record.credits && !ctx.limits.layered) {
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
      const key = importedKey(record, {
        keyward: ctx.keyModel.hasher,
        legacy,
        format: ctx.keyModel.format,
        environments: ctx.keyModel.environments,
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
      prepared.push({ index, record, key });
    });
    return { prepared, refused, skipped };
  };

  const check = (records: readonly unknown[], options: ImportKeysOptions = {}): ImportCheck => {
    const { refused, skipped } = prepare(
      records,
      ctx.clock.now(),
      options.skipUnverifiable === true,
    );
    return { received: Array.isArray(records) ? records.length : 0, refused, skipped };
  };

  const importKeys = async (
    records: readonly unknown[],
    options: ImportKeysOptions = {},
  ): Promise<ImportReport> => {
    const dryRun = options.dryRun === true;
    const now = ctx.clock.now();
    const { prepared, refused, skipped } = prepare(records, now, options.skipUnverifiable === true);
    const report = { dryRun, received: records.length, skipped };
    const nothing = { imported: 0, unchanged: 0, importedIds: [], ownerTiers: [] };
    // The records that passed their own checks meet create's rules too, so that a refusal lists
    // every problem of the call at once.
    const outcome = await applyCreatePolicies(ctx, prepared, now);
    if (refused.length > 0 || outcome.refused.length > 0) {
      const all = [...refused, ...outcome.refused].sort((a, b) => a.index - b.index);
      return { ...report, refused: all, ...nothing };
    }
    const freshIds = outcome.fresh.map((entry) => entry.key.id);
    if (dryRun) {
      return {
        ...report,
        refused: [],
        imported: freshIds.length,
        unchanged: outcome.unchanged,
        importedIds: freshIds,
        ownerTiers: outcome.ownerTiers,
      };
    }
    const keys = outcome.fresh.map((entry) => entry.key);
    const created = keys.length === 0 ? [] : await ctx.store.keys.importKeys!(keys);
    for (const { owner, tier } of outcome.accountTiers)
      await ctx.limits.accountTiers.record(owner, tier);
    const events = ctx.events;
    if (events && created.length > 0) {
      const actor = options.actor === "system" ? systemActor : operatorActor;
      const createdIds = new Set(created);
      await events.append(
        keys
          .filter((key) => createdIds.has(key.id))
          .map((key) => ({ event: events.build.imported(key, now, actor) })),
      );
    }
    return {
      ...report,
      refused: [],
      imported: created.length,
      unchanged: prepared.length - created.length,
      importedIds: created,
      ownerTiers: outcome.ownerTiers,
    };
  };

  return { importKeys, check };
}
