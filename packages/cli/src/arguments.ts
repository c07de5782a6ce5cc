/**
 * The command line, parsed with node:util's parseArgs: which command, its options, checked before
 * any store is opened, so bad usage changes nothing and needs no database.
 */
import { parseArgs } from "node:util";
import { badInput } from "./exit-codes.js";

const common = {
  config: { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

export interface CommonOptions {
  config: string | undefined;
  json: boolean;
}

export type Invocation =
  | { command: "help" }
  | ({ command: "keys list"; owner: string } & CommonOptions)
  | ({
      command: "keys create";
      owner: string;
      name: string;
      scopes: string[];
      tier: string;
      expiresAt: string | undefined;
      accountTier: string | undefined;
    } & CommonOptions)
  | ({
      command: "keys rotate";
      id: string;
      /** `--grace <seconds>`: how long the old secret keeps working; undefined for not at all. */
      graceSeconds: number | undefined;
    } & CommonOptions)
  | ({ command: "keys revoke" | "usage"; id: string } & CommonOptions)
  | ({ command: "migrate" } & CommonOptions);

const commands = ["keys list", "keys create", "keys rotate", "keys revoke", "usage", "migrate"];

export function parseInvocation(given: readonly string[]): Invocation {
  const argv = commandFirst(given);
  const [first, second] = argv;
  if (first === undefined || first === "help" || first === "--help" || first === "-h") {
    return { command: "help" };
  }
  const name =
    first === "keys" && second !== undefined && !second.startsWith("-") ? `keys ${second}` : first;
  if (!commands.includes(name)) {
    throw badInput(
      first === "keys"
        ? `keys needs a subcommand: list, create, rotate or revoke (see keyward --help)`
        : `unknown command "${first}" (see keyward --help)`,
    );
  }
  const rest = argv.slice(name.split(" ").length);
  switch (name) {
    case "keys list": {
      const { values } = parse(rest, { owner: { type: "string" } }, 0);
      if (values.help) return { command: "help" };
      return { command: name, owner: required(values.owner, "--owner"), ...commonOf(values) };
    }
    case "keys create": {
      const { values } = parse(
        rest,
        {
          owner: { type: "string" },
          name: { type: "string" },
          scopes: { type: "string" },
          tier: { type: "string" },
          "expires-at": { type: "string" },
          "account-tier": { type: "string" },
        },
        0,
      );
      if (values.help) return { command: "help" };
      return {
        command: name,
        owner: required(values.owner, "--owner"),
        name: required(values.name, "--name", true),
        scopes: required(values.scopes, "--scopes")
          .split(",")
          .map((scope) => scope.trim()),
        tier: required(values.tier, "--tier"),
        expiresAt: optional(values["expires-at"]),
        accountTier: optional(values["account-tier"]),
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
    default: {
      const { values } = parse(rest, {}, 0);
      if (values.help) return { command: "help" };
      return { command: "migrate", ...commonOf(values) };
    }
  }
}

/** `--grace`: whole seconds, written as digits only (no "1h", no "1e3"), or absent. */
function graceSeconds(value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !/^\d{1,9}$/.test(value)) {
    throw badInput(`--grace takes a whole number of seconds, e.g. --grace 3600, got "${value}"`);
  }
  return Number(value);
}

/**
 * Moves the common options written before the command (`keyward --config c.json keys list …`)
 * after it, so that the command is always first.
 */
function commandFirst(argv: readonly string[]): string[] {
  const leading: string[] = [];
  let index = 0;
  while (index < argv.length && argv[index]!.startsWith("-")) {
    const option = argv[index]!;
    if (option === "--help" || option === "-h") return ["help"];
    const takesValue = option === "--config";
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
    throw badInput(`unexpected argument "${parsed.positionals[positionals]}" (see keyward --help)`);
  }
  return parsed as { values: Record<string, string | boolean | undefined>; positionals: string[] };
}

function commonOf(values: Record<string, string | boolean | undefined>): CommonOptions {
  return { config: values.config as string | undefined, json: values.json === true };
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
