/**
 * `keyward import better-auth --from <postgres-url> --tier <tier>`, `keyward import unkey <file>
 * --tier <tier>`, `keyward import csv <file>`, each with `--dry-run`, `--batch-size`,
 * `--skip-unverifiable` and `--scope-map`: checked before anything is read or opened.
 */
import type { ImportOptions } from "./commands/import.js";
import { badInput } from "./exit-codes.js";
import { parseScopeMap } from "./imports/scope-map.js";
import { quoted } from "./output/printable.js";

type Values = Record<string, string | boolean | undefined>;
type OptionSpec = Record<string, { type: "string" | "boolean"; default?: boolean }>;

const sources = ["better-auth", "unkey", "csv"];
const defaultBatchSize = 500;
const tableName = /^([A-Za-z_][A-Za-z0-9_]{0,62}\.)?[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export function parseImport(
  rest: string[],
  parse: (args: string[], options: OptionSpec) => { values: Values; positionals: string[] },
): "help" | { options: ImportOptions; values: Values } {
  const { values, positionals } = parse(rest, {
    from: { type: "string" },
    tier: { type: "string" },
    table: { type: "string" },
    "organization-configs": { type: "string" },
    "dry-run": { type: "boolean", default: false },
    "batch-size": { type: "string" },
    "skip-unverifiable": { type: "boolean", default: false },
    "scope-map": { type: "string" },
  });
  if (values.help) return "help";
  const [source, file] = positionals;
  if (source === undefined || !sources.includes(source)) {
    throw badInput(
      source === undefined
        ? "import needs a source: better-auth, unkey or csv (see keyward --help)"
        : `unknown import source ${quoted(source)}: better-auth, unkey or csv`,
    );
  }
  const string = (name: string) =>
    typeof values[name] === "string" ? (values[name] as string) : undefined;
  const tier = () => {
    const given = string("tier");
    if (given === undefined || given.trim() === "") {
      throw badInput(`import ${source} needs --tier <tier>: the tier the imported keys get`);
    }
    return given;
  };
  const common = {
    dryRun: values["dry-run"] === true,
    batchSize: batchSize(string("batch-size")),
    skipUnverifiable: values["skip-unverifiable"] === true,
    scopeMap: parseScopeMap(string("scope-map")),
  };
  if (source === "better-auth") {
    if (file !== undefined)
      throw badInput(
        `unexpected argument ${quoted(file)}: better-auth reads --from <postgres-url>`,
      );
    const url = string("from");
    if (url === undefined || !/^postgres(ql)?:\/\//.test(url)) {
      throw badInput(
        "import better-auth needs --from <postgres-url>, e.g. --from postgresql://user@host/db",
      );
    }
    const table = string("table") ?? "apikey";
    if (!tableName.test(table)) throw badInput(`--table ${quoted(table)} is not a table name`);
    const organizationConfigs = (string("organization-configs") ?? "")
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "");
    return {
      options: {
        source: { kind: source, url, table, organizationConfigs, tier: tier() },
        ...common,
      },
      values,
    };
  }
  if (string("from") !== undefined || string("table") !== undefined) {
    throw badInput(`import ${source} reads a file: keyward import ${source} <file>`);
  }
  if (file === undefined)
    throw badInput(`import ${source} needs a file: keyward import ${source} <file>`);
  return {
    options: {
      source: source === "unkey" ? { kind: source, file, tier: tier() } : { kind: "csv", file },
      ...common,
    },
    values,
  };
}

/** `--batch-size`: 1 to 5,000 records per atomic write; default 500. */
function batchSize(value: string | undefined): number {
  if (value === undefined) return defaultBatchSize;
  if (!/^\d{1,4}$/.test(value) || +value < 1 || +value > 5000) {
    throw badInput(`--batch-size takes a whole number from 1 to 5000, got ${quoted(value)}`);
  }
  return Number(value);
}
