/**
 * One invocation of `keyward`, from arguments to exit code: parse, load the configuration, open the
 * stores, run the command, close, and turn every failure into one line on stderr and its exit code.
 */
import { createKeyward, isKeywardError, type KeywardError } from "@keyward/core";
import { type Invocation, parseInvocation } from "./arguments.js";
import type { CommandContext } from "./command.js";
import { keysCreate } from "./commands/keys-create.js";
import { keysList } from "./commands/keys-list.js";
import { keysRevoke } from "./commands/keys-revoke.js";
import { keysRotate } from "./commands/keys-rotate.js";
import { migrate } from "./commands/migrate.js";
import { usage } from "./commands/usage.js";
import { type CliConfig, loadConfig } from "./config.js";
import { CliError, ExitCode } from "./exit-codes.js";
import { describeFailure } from "./failure.js";
import { helpText } from "./help.js";
import { openStores, storeUrls } from "./stores.js";

export interface RunEnvironment {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout(text: string): void;
  stderr(text: string): void;
}

/**
 * Runs `keyward` with `argv` (without the node and script paths) and resolves to the exit code.
 *
 * @example
 * const code = await run(["keys", "list", "--owner", "user_1", "--json"], {
 *   env: process.env, cwd: process.cwd(),
 *   stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text),
 * });
 */
export async function run(argv: readonly string[], io: RunEnvironment): Promise<ExitCode> {
  try {
    const invocation = parseInvocation(argv);
    if (invocation.command === "help") {
      io.stdout(`${helpText}\n`);
      return ExitCode.ok;
    }
    await execute(invocation, io);
    return ExitCode.ok;
  } catch (error) {
    const failure = asCliError(error);
    io.stderr(`keyward: ${failure.message}\n`);
    return failure.exitCode;
  }
}

async function execute(invocation: Exclude<Invocation, { command: "help" }>, io: RunEnvironment) {
  const print = (text: string) => io.stdout(`${text}\n`);
  if (invocation.command === "migrate") {
    // The schema's naming comes from the configuration when there is one; migrate needs no more.
    const config = await loadConfig(invocation.config, io.env, io.cwd).catch((error) => {
      if (invocation.config === undefined && io.env.KEYWARD_CONFIG === undefined) return undefined;
      throw error;
    });
    const stores = await openStores(storeUrls(io.env), config ?? {});
    try {
      await migrate(stores.postgres, invocation.json, print);
    } finally {
      await stores.close();
    }
    return;
  }
  const config = await loadConfig(invocation.config, io.env, io.cwd);
  const stores = await openStores(storeUrls(io.env), config);
  const keyward = createKeyward({
    store: stores.storage,
    ...keywardOptions(config, io.env),
    jwt: false,
    logger: false,
  });
  const context: CommandContext = {
    keyward,
    storage: stores.storage,
    json: invocation.json,
    print,
  };
  try {
    switch (invocation.command) {
      case "keys list":
        return await keysList(context, invocation.owner);
      case "keys create":
        return await keysCreate(context, {
          ownerId: invocation.owner,
          name: invocation.name,
          scopes: invocation.scopes,
          tier: invocation.tier,
          accountTier: invocation.accountTier,
          ...(invocation.expiresAt === undefined ? {} : { expiresAt: invocation.expiresAt }),
        });
      case "keys rotate":
        return await keysRotate(context, invocation.id, invocation.graceSeconds);
      case "keys revoke":
        return await keysRevoke(context, invocation.id);
      case "usage":
        return await usage(context, invocation.id);
    }
  } finally {
    // Closes the stores too, writing nothing the command did not (the CLI records no usage).
    await keyward.close();
    await stores.close();
  }
}

function keywardOptions(config: CliConfig, env: NodeJS.ProcessEnv) {
  return {
    scopes: config.scopes,
    tiers: config.tiers,
    ...(config.keyPrefix === undefined ? {} : { keyPrefix: config.keyPrefix }),
    // The operator may give a grace up to the application's maximum (7 days unless configured).
    gracefulRotation: config.gracefulRotation ?? true,
    ...(env.KEYWARD_PEPPER ? { pepper: env.KEYWARD_PEPPER } : {}),
  };
}

/** The option each field of the create body comes from, for validation messages. */
const optionOfField: Record<string, string> = {
  name: "--name",
  scopes: "--scopes",
  tier: "--tier",
  expiresAt: "--expires-at",
  gracePeriodSeconds: "--grace",
};

function asCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (isKeywardError(error)) return fromKeywardError(error);
  // createKeyward refuses a configuration with the option's name and the fix.
  if (error instanceof TypeError || error instanceof RangeError) {
    return new CliError(ExitCode.badInput, error.message, { cause: error });
  }
  return new CliError(ExitCode.storeUnavailable, describeFailure(error), { cause: error });
}

function fromKeywardError(error: KeywardError): CliError {
  switch (error.code) {
    case "validation_failed": {
      const issues = Array.isArray(error.detail) ? error.detail : [];
      const lines = issues.map((issue) => {
        const [, field, ...path] = issue.loc;
        const option = optionOfField[String(field)] ?? String(field);
        const where =
          path.length > 0
            ? `${option} item ${path.map((index) => Number(index) + 1).join(".")}`
            : option;
        return `  ${where}: ${issue.msg}`;
      });
      return new CliError(ExitCode.badInput, `invalid input:\n${lines.join("\n")}`, {
        cause: error,
      });
    }
    case "key_not_found":
    case "key_gone":
    case "rotation_conflict":
    case "not_owner":
      return new CliError(ExitCode.notFound, String(error.detail), { cause: error });
    case "internal":
      return new CliError(ExitCode.storeUnavailable, `store failure: ${describeFailure(error)}`, {
        cause: error,
      });
    default:
      return new CliError(ExitCode.badInput, String(error.detail), { cause: error });
  }
}
