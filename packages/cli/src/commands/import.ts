/**
 * `keyward import <source> …`: existing keys into the application's store through its own
 * `imports()` feature. Every record is read and checked first; a single one that cannot be mapped
 * or that Keyward refuses stops the import before anything is written (exit 1, each problem on a
 * line). Then the keys are written in batches, each one atomic; a batch that fails stops the import
 * (exit 3), and running it again finishes it, since keys already imported are left as they are.
 */
import type { ImportReport } from "@keyward/core/imports";
import type { CommandContext } from "../command.js";
import { printJson } from "../command.js";
import { badInput, CliError, ExitCode } from "../exit-codes.js";
import { describeFailure } from "../failure.js";
import { readBetterAuth } from "../imports/better-auth.js";
import { readCsv } from "../imports/csv.js";
import type { SourceRecords } from "../imports/source-records.js";
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
  const checked = imports.check(read.records.map((entry) => entry.record));
  const problems = [
    ...read.unmapped.map(({ source, reason }) => `  ${source}: ${reason}`),
    ...checked.refused.flatMap(({ index, issues }) =>
      issues.map(
        (issue) =>
          `  ${read.records[index]!.source}: ${issue.loc.length > 0 ? `${issue.loc.join(".")}: ` : ""}${issue.msg}`,
      ),
    ),
  ];
  if (problems.length > 0) {
    const count = read.unmapped.length + checked.refused.length;
    throw badInput(
      `nothing was imported: ${count} of ${read.records.length + read.unmapped.length} records refused\n${problems.join("\n")}`,
    );
  }
  const total = read.records.length;
  const totals = { imported: 0, unchanged: 0 };
  for (let start = 0; start < total; start += options.batchSize) {
    const batch = read.records.slice(start, start + options.batchSize).map((entry) => entry.record);
    let report: ImportReport;
    try {
      report = await imports.importKeys(batch, { dryRun: options.dryRun });
    } catch (error) {
      context.progress?.done();
      throw new CliError(
        ExitCode.storeUnavailable,
        `the import stopped at record ${start + 1} of ${total} (${totals.imported} keys imported before it): ${describeFailure(error)}. Run it again to finish: keys already imported are left as they are.`,
        { cause: error },
      );
    }
    totals.imported += report.imported;
    totals.unchanged += report.unchanged;
    context.progress?.update(Math.min(start + options.batchSize, total), total);
  }
  context.progress?.done();
  if (context.json) {
    return printJson(context, { dryRun: options.dryRun, received: total, ...totals, refused: [] });
  }
  context.print(
    options.dryRun
      ? `dry run: would import ${totals.imported} of ${total} keys; ${totals.unchanged} already imported. Nothing was written.`
      : `imported ${totals.imported} of ${total} keys; ${totals.unchanged} already imported were left as they are.`,
  );
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
