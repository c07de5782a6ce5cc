/**
 * One invocation of `keyward`, from arguments to exit code: parse, load the application's Keyward
 * instance, run the command through it, close it, and turn every failure into one line on stderr
 * and its exit code.
 */
import type { Keyward, KeywardError } from "@keyward/core";
import { loadApp } from "./app.js";
import { type Invocation, parseInvocation } from "./arguments.js";
import type { CommandContext } from "./command.js";
import { events } from "./commands/events.js";
import { importCommand } from "./commands/import.js";
import { keysCreate } from "./commands/keys-create.js";
import { keysList } from "./commands/keys-list.js";
import { keysRevoke } from "./commands/keys-revoke.js";
import { keysRotate } from "./commands/keys-rotate.js";
import { migrate } from "./commands/migrate.js";
import { usage } from "./commands/usage.js";
import { usageReconcile } from "./commands/usage-reconcile.js";
import { CliError, ExitCode } from "./exit-codes.js";
import { describeFailure } from "./failure.js";
import { helpText } from "./help.js";
import { terminalProgress } from "./imports/progress.js";
import { keywardErrorOf } from "./keyward-error.js";
import { printable } from "./output/printable.js";

export interface RunEnvironment {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal: only then is a progress bar drawn. */
  stderrIsTerminal?: boolean;
}

/**
 * How long closing the application may take (flushing usage, waiting for a webhook delivery in
 * progress, ending connections) before the CLI gives up on it: a command is never held by a store
 * that does not answer.
 */
const closeDeadlineMs = 15_000;

/**
 * Runs `keyward` with `argv` (without the node and script paths) and resolves to the exit code.
 * The application may leave handles open that only its own shutdown would close: the executable
 * exits with the code once this resolves, rather than waiting for them.
 *
 * @example
 * const code = await run(["keys", "list", "--owner", "user_1", "--app", "src/keyward.ts"], {
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
    // Line by line: a validation failure lists its problems on lines of their own.
    io.stderr(`keyward: ${failure.message.split("\n").map(printable).join("\n")}\n`);
    return failure.exitCode;
  }
}

async function execute(invocation: Exclude<Invocation, { command: "help" }>, io: RunEnvironment) {
  const print = (text: string) => io.stdout(`${text}\n`);
  if (invocation.command === "migrate") {
    return migrate({
      env: io.env,
      schema: invocation.schema,
      tablePrefix: invocation.tablePrefix,
      json: invocation.json,
      print,
    });
  }
  const keyward = await loadApp(invocation.app, io.env, io.cwd);
  const context: CommandContext = {
    keyward,
    json: invocation.json,
    print,
    ...(io.stderrIsTerminal ? { progress: terminalProgress(io.stderr) } : {}),
  };
  try {
    switch (invocation.command) {
      case "keys list":
        return await keysList(context, invocation.owner);
      case "keys create":
        return await keysCreate(context, {
          owner: invocation.owner,
          createdBy: invocation.createdBy,
          name: invocation.name,
          scopes: invocation.scopes,
          tier: invocation.tier,
          accountTier: invocation.accountTier,
          ...(invocation.expiresAt === undefined ? {} : { expiresAt: invocation.expiresAt }),
          ...(invocation.environment === undefined ? {} : { environment: invocation.environment }),
        });
      case "keys rotate":
        return await keysRotate(context, invocation.id, invocation.graceSeconds);
      case "keys revoke":
        return await keysRevoke(context, invocation.id);
      case "usage":
        return await usage(context, invocation.id);
      case "usage reconcile":
        return await usageReconcile(context, invocation.period);
      case "events":
        return await events(context, invocation.id, invocation);
      case "import":
        return await importCommand(context, invocation);
    }
  } finally {
    await close(keyward, io);
  }
}

/**
 * Closes the application's instance, and with it its stores: the events and webhook deliveries a
 * change started finish first (a delivery that fails stays in the outbox, for the application's
 * instances to retry). A close that fails or hangs is reported; it does not undo the command.
 */
async function close(keyward: Keyward, io: RunEnvironment): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), closeDeadlineMs);
  });
  try {
    const outcome = await Promise.race([keyward.close(), deadline]);
    if (outcome === "timeout") {
      io.stderr(`keyward: the application did not close within ${closeDeadlineMs / 1000} s\n`);
    }
  } catch (error) {
    io.stderr(`keyward: closing the application failed: ${printable(describeFailure(error))}\n`);
  } finally {
    clearTimeout(timer);
  }
}

/** The option each field of the create body comes from, for validation messages. */
const optionOfField: Record<string, string> = {
  name: "--name",
  scopes: "--scopes",
  tier: "--tier",
  expiresAt: "--expires-at",
  environment: "--environment",
  gracePeriodSeconds: "--grace",
};

function asCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  const keywardError = keywardErrorOf(error);
  if (keywardError) return fromKeywardError(keywardError);
  // Keyward refuses a misuse (an environment that is not configured, a grace without
  // `gracefulRotation`) with a TypeError naming it and the fix.
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
