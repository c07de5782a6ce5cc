/**
 * The application's own Keyward instance, which every key command goes through: an operator's
 * command must have exactly the effects the running application's own call would have, with the same stores, scopes, tiers, environments, organizations, pepper, events,
 * webhooks and invalidation as the running application, so the CLI is no second write path. It
 * is the default export of the module `--app` (else `KEYWARD_APP`) names: the instance, a promise
 * of it, or a function returning either. A TypeScript module is loaded with tsx, so an
 * application written in TypeScript needs no build step.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Keyward } from "@keyward/core";
import { badInput, CliError, ExitCode } from "./exit-codes.js";
import { describeFailure } from "./failure.js";
import { importOptional } from "./optional-dependency.js";
import { printable } from "./output/printable.js";

const typeScript = /\.(c|m)?tsx?$/;

/** tsx, which loads a TypeScript application module; a JavaScript one does not need it. */
const loadTsx = () =>
  importOptional<typeof import("tsx/esm/api")>({
    specifier: "tsx/esm/api",
    packageName: "tsx",
    neededBy: "a TypeScript --app module (or build it to JavaScript)",
  });

/**
 * Imports the application's module and resolves to its instance. Every failure is a `CliError`: a
 * module that is missing, cannot be loaded or has no instance, or an instance refused by
 * `createKeyward` (exit 1); an application that cannot start for another reason, most often a
 * store it cannot reach (exit 3).
 */
export async function loadApp(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<Keyward> {
  const named = explicit ?? (env.KEYWARD_APP || undefined);
  if (named === undefined) {
    throw badInput(
      "no application: pass --app <module> or set KEYWARD_APP, a module whose default export is your Keyward instance (docs/cli.md)",
    );
  }
  const file = path.resolve(cwd, named);
  const shown = printable(file);
  if (!existsSync(file)) throw badInput(`application module not found: ${shown}`);
  // Outside the try: a missing tsx is the CLI's setup, not the application failing to start.
  const tsx = typeScript.test(file) ? await loadTsx() : undefined;
  let exported: unknown;
  try {
    const url = pathToFileURL(file).href;
    const module = (tsx ? await tsx.tsImport(url, import.meta.url) : await import(url)) as {
      default?: unknown;
    };
    exported = module.default;
    if (typeof exported === "function") exported = (exported as () => unknown)();
    exported = await exported;
  } catch (error) {
    throw startFailure(shown, error);
  }
  if (isKeyward(exported) && typeof exported.keys.get !== "function") {
    throw badInput(
      `${shown} exports a Keyward instance from an older @keyward/core, without keys.get: use the @keyward/core release of this @keyward/cli`,
    );
  }
  if (!isKeyward(exported)) {
    throw badInput(
      `${shown} must export your Keyward instance as its default export (export default keyward), or a function or promise that returns it`,
    );
  }
  return exported;
}

/** What `createKeyward` returns, recognised by its shape (the application has its own copy of core). */
function isKeyward(value: unknown): value is Keyward {
  const candidate = value as Partial<Keyward> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.keys?.create === "function" &&
    typeof candidate.close === "function"
  );
}

/**
 * A module that cannot be loaded (a syntax error, an import that does not resolve) or a
 * configuration `createKeyward` refuses (a `TypeError` naming the option): exit 1. Anything else
 * the application throws while starting is most often a store it cannot reach: exit 3.
 */
function startFailure(shown: string, error: unknown): CliError {
  const code = (error as { code?: unknown } | null)?.code;
  const unloadable =
    error instanceof TypeError ||
    error instanceof RangeError ||
    error instanceof SyntaxError ||
    (typeof code === "string" && code.startsWith("ERR_"));
  return unloadable
    ? new CliError(
        ExitCode.badInput,
        `cannot load the application ${shown}: ${(error as Error).message ?? String(error)}`,
        { cause: error },
      )
    : new CliError(
        ExitCode.storeUnavailable,
        `the application ${shown} could not start: ${describeFailure(error)}`,
        { cause: error },
      );
}
