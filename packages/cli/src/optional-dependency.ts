/**
 * The packages only some commands need, loaded when one of them runs. A Redis-only host installs
 * neither `pg` nor `@keyward/postgres`, and a host whose application is JavaScript does not need
 * `tsx`: they are optional peer dependencies of `@keyward/cli` (package.json,
 * `peerDependenciesMeta`), and a command that needs one that is missing stops with the package to
 * install rather than Node's "Cannot find package" from deep inside the CLI.
 */
import { badInput } from "./exit-codes.js";

/** What a command loads, and what for. */
export interface OptionalDependency {
  /** The import specifier: the package or one of its entry points (`tsx/esm/api`). */
  specifier: string;
  /** The package to install for it (`tsx`). */
  packageName: string;
  /** What needs it, for the message: `keyward migrate`, `a TypeScript --app module`. */
  neededBy: string;
  /** The packages the install command names, when the command needs several; default the one. */
  installWith?: readonly string[];
}

/**
 * Imports `dependency.specifier`. When the package itself cannot be found, throws a `CliError`
 * (exit 1, nothing changed) naming it and the install command; any other failure (the package is
 * there but one of its own imports is missing, or it throws while loading) is thrown as it is.
 *
 * @example
 * const { default: pg } = await importOptional<typeof import("pg")>(
 *   { specifier: "pg", packageName: "pg", neededBy: "keyward migrate" },
 * );
 */
export async function importOptional<Module>(dependency: OptionalDependency): Promise<Module> {
  try {
    return (await import(dependency.specifier)) as Module;
  } catch (error) {
    if (isMissing(error, dependency.packageName)) {
      throw badInput(
        `${dependency.neededBy} needs the package ${dependency.packageName}, which is not installed: npm install ${(dependency.installWith ?? [dependency.packageName]).join(" ")}`,
      );
    }
    throw error;
  }
}

/**
 * "Cannot find package 'name' imported from …" for this package, not for one it imports. Node names
 * the package (`'tsx'`); a loader in front of Node (vitest's) may name the whole specifier
 * (`'tsx/esm/api'`).
 */
function isMissing(error: unknown, packageName: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    typeof message === "string" &&
    (message.includes(`'${packageName}'`) || message.includes(`'${packageName}/`))
  );
}
