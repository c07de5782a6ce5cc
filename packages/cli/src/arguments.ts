/**
 * The command line, parsed with node:util's parseArgs: which command, its options, checked before
 * any store is opened, so bad usage changes nothing and needs no database.
 */
import { parseArgs } from "node:util";
import type { Owner } from "@keyward/core";
import type { ImportOptions } from "./commands/import.js";
import { badInput } from "./exit-codes.js";
import { parseImport } from "./import-arguments.js";
import { quoted } from "./output/printable.js";

const common = {
  app: { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

export interface CommonOptions {
  /** `--app <module>`: the module whose default export is the application's Keyward instance. */
  app: string | undefined;
  json: boolean;
}

export type Invocation =
  | { command: "help" }
  | ({ command: "keys list"; owner: Owner } & CommonOptions)
  | ({
      command: "keys create";
      owner: Owner;
      /** `--created-by`: the user recorded as the key's creator; required for an organization. */
      createdBy: string | undefined;
      name: string;
      scopes: string[];
      tier: string;
      expiresAt: string | undefined;
      accountTier: string | undefined;
      environment: string | undefined;
    } & CommonOptions)
  | ({
      command: "keys rotate";
      id: string;
      /** `--grace <seconds>`: how long the old secret keeps working; undefined for not at all. */
      graceSeconds: number | undefined;
    } & CommonOptions)
  | ({ command: "keys revoke" | "usage"; id: string } & CommonOptions)
  | ({
      command: "usage reconcile";
      /** `--period YYYY-MM`: the UTC calendar month compared. */
      period: string;
    } & CommonOptions)
  | ({
      command: "events";
      id: string;
      /** `--limit`: how many of the newest events, 1 to 1,000. */
      limit: number;
      /** `--after <cursor>`: the page after the one that printed this cursor. */
      after: string | undefined;
    } & CommonOptions)
  | ({ command: "import" } & ImportOptions & CommonOptions)
  | ({
      command: "migrate";
      /** `postgresStore`'s naming, where the application names its tables otherwise. */
      schema: string | undefined;
      tablePrefix: string | undefined;
    } & CommonOptions);

const commands = [
  "keys list",
  "keys create",
  "keys rotate",
  "keys revoke",
  "usage",
  "usage reconcile",
  "events",
  "import",
  "migrate",
];

const ownerOptions = { owner: { type: "string" }, org: { type: "string" } } as const;

export function parseInvocation(given: readonly string[]): Invocation {
  const argv = commandFirst(given);
  const [first, second] = argv;
  if (first === undefined || first === "help" || first === "--help" || first === "-h") {
    return { command: "help" };
  }
  const name =
    first === "keys" && second !== undefined && !second.startsWith("-")
      ? `keys ${second}`
      : first === "usage" && second === "reconcile"
        ? "usage reconcile"
        : first;
  if (!commands.includes(name)) {
    throw badInput(
      first === "keys"
        ? `keys needs a subcommand: list, create, rotate or revoke (see keyward --help)`
        : `unknown command ${quoted(first)} (see keyward --help)`,
    );
  }
  const rest = argv.slice(name.split(" ").length);
  if (name === "import") {
    const parsed = parseImport(rest, (args, options) => parse(args, options, 2));
    return parsed === "help"
      ? { command: "help" }
      : { command: "import", ...parsed.options, ...commonOf(parsed.values) };
  }
  switch (name) {
    case "keys list": {
      const { values } = parse(rest, ownerOptions, 0);
      if (values.help) return { command: "help" };
      return { command: name, owner: ownerOption(values), ...commonOf(values) };
    }
    case "keys create": {
      const { values } = parse(
        rest,
        {
          ...ownerOptions,
          "created-by": { type: "string" },
          name: { type: "string" },
          scopes: { type: "string" },
          tier: { type: "string" },
          "expires-at": { type: "string" },
          "account-tier": { type: "string" },
          environment: { type: "string" },
        },
        0,
      );
      if (values.help) return { command: "help" };
      const owner = ownerOption(values);
      const createdBy = optional(values["created-by"]);
      if (owner.type === "organization" && createdBy === undefined) {
        throw badInput(
          "keys create --org needs --created-by <user id>: the member recorded as the key's creator",
        );
      }
      return {
        command: name,
        owner,
        createdBy,
        name: required(values.name, "--name", true),
        scopes: required(values.scopes, "--scopes")
          .split(",")
          .map((scope) => scope.trim()),
        tier: required(values.tier, "--tier"),
        expiresAt: optional(values["expires-at"]),
        accountTier: optional(values["account-tier"]),
        environment: optional(values.environment),
        ...commonOf(values),
      };
    }
    case "keys rotate": {
      const { values, positionals } = parse(rest, { grace: { type: "string" } }, 1);
      if (values.help) return { command: "help" };
      const id = positionals[0];
      if (id === undefined) throw badInput(`${name} needs a key id: keyward ${name} <key id>`);
      return { command: name, id, graceSeconds: graceSeconds(values.grace), ...commonOf(values) };
    }
    case "keys revoke":
    case "usage": {
      const { values, positionals } = parse(rest, {}, 1);
      if (values.help) return { command: "help" };
      const id = positionals[0];
      if (id === undefined) throw badInput(`${name} needs a key id: keyward ${name} <key id>`);
      return { command: name, id, ...commonOf(values) };
    }
    case "usage reconcile": {
      const { values } = parse(rest, { period: { type: "string" } }, 0);
      if (values.help) return { command: "help" };
      const period = required(values.period, "--period");
      if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(period)) {
        throw badInput(
          `--period takes a UTC month as YYYY-MM, e.g. --period 2026-12, got ${quoted(period)}`,
        );
      }
      return { command: name, period, ...commonOf(values) };
    }
    case "events": {
      const { values, positionals } = parse(
        rest,
        { limit: { type: "string" }, after: { type: "string" } },
        1,
      );
      if (values.help) return { command: "help" };
      const id = positionals[0];
      if (id === undefined) throw badInput(`${name} needs a key id: keyward ${name} <key id>`);
      return {
        command: name,
        id,
        limit: pageSize(values.limit),
        after: optional(values.after),
        ...commonOf(values),
      };
    }
    default: {
      const { values } = parse(
        rest,
        { schema: { type: "string" }, "table-prefix": { type: "string" } },
        0,
      );
      if (values.help) return { command: "help" };
      return {
        command: "migrate",
        schema: optional(values.schema),
        tablePrefix: optional(values["table-prefix"]),
        ...commonOf(values),
      };
    }
  }
}

/** `--grace`: whole seconds, written as digits only (no "1h", no "1e3"), or absent. */
function graceSeconds(value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !/^\d{1,9}$/.test(value)) {
    throw badInput(
      `--grace takes a whole number of seconds, e.g. --grace 3600, got ${quoted(String(value))}`,
    );
  }
  return Number(value);
}

/** `--limit` of `events`: 1 to 1,000, default 100 (the audit log's own page sizes). */
function pageSize(value: string | boolean | undefined): number {
  if (value === undefined) return 100;
  if (typeof value !== "string" || !/^\d{1,4}$/.test(value) || +value < 1 || +value > 1000) {
    throw badInput(`--limit takes a whole number from 1 to 1000, got ${quoted(String(value))}`);
  }
  return Number(value);
}

/** Whose keys: exactly one of `--owner <user id>` and `--org <organization id>`. */
function ownerOption(values: Record<string, string | boolean | undefined>): Owner {
  const user = optional(values.owner);
  const organization = optional(values.org);
  if ((user === undefined) === (organization === undefined)) {
    throw badInput(
      user === undefined
        ? "missing --owner <user id> or --org <organization id> (see keyward --help)"
        : "give --owner or --org, not both",
    );
  }
  return organization === undefined
    ? { type: "user", id: required(user, "--owner") }
    : { type: "organization", id: required(organization, "--org") };
}

/**
 * Moves the common options written before the command (`keyward --app src/keyward.ts keys list …`)
 * after it, so that the command is always first.
 */
function commandFirst(argv: readonly string[]): string[] {
  const leading: string[] = [];
  let index = 0;
  while (index < argv.length && argv[index]!.startsWith("-")) {
    const option = argv[index]!;
    if (option === "--help" || option === "-h") return ["help"];
    const takesValue = option === "--app";
    leading.push(...argv.slice(index, index + (takesValue ? 2 : 1)));
    index += takesValue ? 2 : 1;
  }
  const command = argv.slice(index);
  const words =
    command[0] === "keys" && command[1] !== undefined && !command[1].startsWith("-") ? 2 : 1;
  return [...command.slice(0, words), ...leading, ...command.slice(words)];
}

type OptionSpec = Record<string, { type: "string" | "boolean"; short?: string; default?: boolean }>;

function parse(args: string[], options: OptionSpec, positionals: number) {
  let parsed: ReturnType<typeof parseArgs<{ options: OptionSpec; allowPositionals: true }>>;
  try {
    parsed = parseArgs({
      args,
      options: { ...common, ...options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // parseArgs names the option: "Unknown option '--nmae'", "Option '--owner <value>' argument missing".
    throw badInput(`${(error as Error).message} (see keyward --help)`);
  }
  if (parsed.positionals.length > positionals) {
    throw badInput(
      `unexpected argument ${quoted(parsed.positionals[positionals]!)} (see keyward --help)`,
    );
  }
  return parsed as { values: Record<string, string | boolean | undefined>; positionals: string[] };
}

function commonOf(values: Record<string, string | boolean | undefined>): CommonOptions {
  return { app: values.app as string | undefined, json: values.json === true };
}

function optional(value: string | boolean | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** An option's value, refused when missing or (unless `mayBeBlank`) blank. */
function required(value: string | boolean | undefined, option: string, mayBeBlank = false): string {
  if (typeof value !== "string") throw badInput(`missing ${option} (see keyward --help)`);
  // A blank name reaches Keyward's own validation, which says what it wants of it.
  if (!mayBeBlank && value.trim() === "") throw badInput(`${option} is empty`);
  return value;
}
