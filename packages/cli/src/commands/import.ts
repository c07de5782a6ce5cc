/**
 * `keyward import <source> …`: existing keys into the application's store through its own
 * `imports()` feature. An import is a create: every record is read and checked first, against the
 * store and create's policies too (a dry run of the whole import, `importKeys({ dryRun })`): a
 * single one that cannot be mapped or that Keyward refuses stops the import before anything is
 * written (exit 1, each problem on a line, a scope that is not configured listed once). Records
 * `verify` would never find are refused too, or, with `--skip-unverifiable`, left out and listed.
 * Then the keys are written in batches, each one atomic, with the account tiers the check decided
 * (so every batch records the same); a batch that fails stops the import (exit 3), and running it
 * again finishes it, since keys already imported are left as they are.
 */
import type { ImportReport } from "@keyward/core/imports";
import type { CommandContext } from "../command.js";
import { printJson } from "../command.js";
import { badInput, CliError, ExitCode } from "../exit-codes.js";
import { describeFailure } from "../failure.js";
import { readBetterAuth } from "../imports/better-auth.js";
import { readCsv } from "../imports/csv.js";
import { applyScopeMap } from "../imports/scope-map.js";
import type { SourceRecord, SourceRecords } from "../imports/source-records.js";
import { readUnkey } from "../imports/unkey.js";
import { printable } from "../output/printable.js";

export type ImportSource =
  | { kind: "better-auth"; url: string; table: string; organizationConfigs: string[]; tier: string }
  | { kind: "unkey"; file: string; tier: string }
  | { kind: "csv"; file: string };

export interface ImportOptions {
  source: ImportSource;
  dryRun: boolean;
  /** Records per atomic write. */
  batchSize: number;
  /** Leave out (and list) the records `verify` would never find, instead of refusing the import. */
  skipUnverifiable: boolean;
  /** `--scope-map`: a source's scope → a configured scope, or null to drop it. */
  scopeMap: ReadonlyMap<string, string | null>;
}

/** How long reading better-auth's table may take, ms. */
const readTimeoutMs = 60_000;

export async function importCommand(
  context: CommandContext,
  options: ImportOptions,
): Promise<void> {
  const imports = context.keyward.imports;
  if (imports === undefined) {
    throw badInput(
      "the application does not list imports() (from @keyward/core/imports): add it to its features to import keys",
    );
  }
  const read = await readSource(options.source);
  applyScopeMap(read.records, options.scopeMap);
  const all = read.records.map((entry) => entry.record);
  const skipUnverifiable = options.skipUnverifiable;
  // The whole import checked as it would be written, against the store too: nothing is written
  // unless every record passes (a batch cannot fail half-way on a record the check would refuse).
  let planned: ImportReport;
  try {
    planned = await imports.importKeys(all, { dryRun: true, skipUnverifiable });
  } catch (error) {
    throw new CliError(
      ExitCode.storeUnavailable,
      `nothing was imported: checking the import against the store failed: ${describeFailure(error)}`,
      { cause: error },
    );
  }
  const problems = [
    ...read.unmapped.map(({ source, reason }) => `  ${source}: ${reason}`),
    ...describeRefusals(read.records, planned.refused),
  ];
  if (problems.length > 0) {
    const count = read.unmapped.length + planned.refused.length;
    throw badInput(
      `nothing was imported: ${count} of ${read.records.length + read.unmapped.length} records refused\n${problems.join("\n")}`,
    );
  }
  const skipped = planned.skipped.flatMap(({ index, issues }) =>
    issues.map((issue) => `  ${read.records[index]!.source}: ${issueText(issue)}`),
  );
  const skippedNote =
    skipped.length > 0
      ? `\nskipped ${planned.skipped.length} keys verify would never find:\n${skipped.join("\n")}`
      : "";
  const total = read.records.length;
  if (options.dryRun) {
    const totals = { imported: planned.imported, unchanged: planned.unchanged };
    if (context.json) return printJson(context, { ...summary(planned, total), dryRun: true });
    context.print(
      `dry run: would import ${totals.imported} of ${total} keys; ${totals.unchanged} already imported. Nothing was written.${skippedNote}`,
    );
    return;
  }
  // Every batch records the account tier the whole import decided for each owner.
  const tierOf = new Map(
    planned.ownerTiers.map(({ owner, tier }) => [`${owner.type}:${owner.id}`, tier]),
  );
  const left = new Set(planned.skipped.map((entry) => entry.index));
  const records = all
    .filter((_, index) => !left.has(index))
    .map((record) => withAccountTier(record, tierOf));
  const totals = { imported: 0, unchanged: 0 };
  for (let start = 0; start < records.length; start += options.batchSize) {
    const batch = records.slice(start, start + options.batchSize);
    let report: ImportReport;
    try {
      report = await imports.importKeys(batch);
    } catch (error) {
      context.progress?.done();
      throw new CliError(
        ExitCode.storeUnavailable,
        `the import stopped at record ${start + 1} of ${records.length} (${totals.imported} keys imported before it): ${describeFailure(error)}. Run it again to finish: keys already imported are left as they are.`,
        { cause: error },
      );
    }
    if (report.refused.length > 0) {
      // Something changed in the store since the check (another writer): stop, resumable.
      context.progress?.done();
      throw badInput(
        `the import stopped at record ${start + 1} of ${records.length} (${totals.imported} keys imported before it): the store changed since the check\n${describeRefusals(
          batch.map((record, i) => ({ source: `record ${start + i + 1}`, record })),
          report.refused,
        ).join("\n")}`,
      );
    }
    totals.imported += report.imported;
    totals.unchanged += report.unchanged;
    context.progress?.update(Math.min(start + options.batchSize, records.length), records.length);
  }
  context.progress?.done();
  if (context.json) {
    return printJson(context, {
      ...summary(planned, total),
      dryRun: false,
      ...totals,
    });
  }
  context.print(
    `imported ${totals.imported} of ${total} keys; ${totals.unchanged} already imported were left as they are.${skippedNote}`,
  );
}

function summary(report: ImportReport, total: number) {
  return {
    received: total,
    imported: report.imported,
    unchanged: report.unchanged,
    refused: [],
    skipped: report.skipped.map((entry) => ({ index: entry.index, issues: entry.issues })),
  };
}

function issueText(issue: { loc: readonly (string | number)[]; msg: string }): string {
  return `${issue.loc.length > 0 ? `${issue.loc.join(".")}: ` : ""}${issue.msg}`;
}

/**
 * Each refusal on a line, but a scope that is not configured once for the whole import, with how
 * to map or drop it (`--scope-map`): one better-auth permission otherwise fills every row.
 */
function describeRefusals(
  records: readonly SourceRecord[],
  refused: ImportReport["refused"],
): string[] {
  const unknownScopes = new Map<string, number>();
  const lines: string[] = [];
  for (const { index, issues } of refused) {
    const entry = records[index]!;
    for (const issue of issues) {
      const scopes = entry.record.scopes;
      if (
        issue.loc[0] === "scopes" &&
        issue.type === "literal_error" &&
        Array.isArray(scopes) &&
        typeof scopes[issue.loc[1] as number] === "string"
      ) {
        const scope = scopes[issue.loc[1] as number] as string;
        unknownScopes.set(scope, (unknownScopes.get(scope) ?? 0) + 1);
        continue;
      }
      lines.push(`  ${entry.source}: ${issueText(issue)}`);
    }
  }
  if (unknownScopes.size > 0) {
    const listed = [...unknownScopes]
      .map(([scope, count]) => `${printable(scope)} (${count} record${count === 1 ? "" : "s"})`)
      .join(", ");
    const example = [...unknownScopes.keys()].map((scope) => `${printable(scope)}=`).join(",");
    lines.unshift(
      `  scopes that are not configured: ${listed}; map each to a configured scope or drop it with --scope-map '${example}' (after "=" a scope, or nothing to drop it)`,
    );
  }
  return lines;
}

/** The record with the account tier the check decided for its owner, unless it states one. */
function withAccountTier(
  record: Record<string, unknown>,
  tierOf: ReadonlyMap<string, string>,
): Record<string, unknown> {
  if (record.accountTier !== undefined) return record;
  const owner = record.owner;
  const key =
    typeof owner === "string"
      ? `user:${owner}`
      : typeof owner === "object" && owner !== null
        ? `${(owner as { type?: unknown }).type}:${(owner as { id?: unknown }).id}`
        : undefined;
  const tier = key === undefined ? undefined : tierOf.get(key);
  return tier === undefined ? record : { ...record, accountTier: tier };
}

async function readSource(source: ImportSource): Promise<SourceRecords> {
  if (source.kind === "better-auth") {
    try {
      return await readBetterAuth({ ...source, timeoutMs: readTimeoutMs });
    } catch (error) {
      if (error instanceof CliError) throw error; // pg not installed: already says what to do
      throw new CliError(
        ExitCode.storeUnavailable,
        `cannot read better-auth's table ${printable(source.table)}: ${describeFailure(error)}`,
        { cause: error },
      );
    }
  }
  try {
    return source.kind === "unkey"
      ? await readUnkey(source.file, source.tier)
      : await readCsv(source.file);
  } catch (error) {
    throw badInput((error as Error).message);
  }
}
