/**
 * `@keyward/core` as it was at another commit, loaded beside the current one, so a benchmark can
 * compare the two in one process and one run ("no slower than before" as a ratio measured under
 * the same load, not two figures from two runs). The commit's `packages/core` is extracted once
 * into the system's temp folder and imported from source through tsx, with today's dependencies,
 * plus any the commit's core had that today's no longer does (found in the workspace's store).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The full commit id of `ref` (a branch, tag, `HEAD~1`…), or a clear error. */
export function resolveCommit(ref: string): string {
  try {
    return execFileSync("git", ["rev-parse", "--verify", `${ref}^{commit}`], {
      cwd: repo,
      encoding: "utf8",
    }).trim();
  } catch {
    throw new Error(`KEYWARD_BASELINE=${ref}: not a commit in ${repo}`);
  }
}

export async function importBaselineCore(ref: string): Promise<
  typeof import("@keyward/core") & {
    commit: string;
    /**
     * Another workspace package at that commit (`"otel"` for `packages/otel`), from source, its
     * `@keyward/core` the baseline's core: a package built on the kernel's feature interface must
     * be the one of its own commit.
     */
    workspacePackage(name: string): Promise<Record<string, unknown>>;
    /** A feature's entry point (`"events"` for `src/events/index.ts`) at that commit, if it has one. */
    feature(entry: string): Promise<Record<string, unknown> | undefined>;
  }
> {
  const commit = resolveCommit(ref);
  const root = join(tmpdir(), `keyward-baseline-${commit.slice(0, 12)}`);
  const core = extractPackage(commit, root, "core");
  const modules = join(core, "node_modules");
  if (!existsSync(modules)) linkDependencies(core, modules);
  const loaded = await import(pathToFileURL(join(core, "src/index.ts")).href);
  return {
    ...loaded,
    commit,
    workspacePackage: (name: string) => importBaselinePackage(commit, root, name),
    feature: async (entry: string) => {
      const file = featureSource(core, entry);
      return file ? await import(pathToFileURL(file).href) : undefined;
    },
  };
}

/**
 * The baseline's `node_modules`: a link to each of today's core dependencies, and for a dependency
 * only the baseline's `package.json` names (one since moved to a package of its own), the copy in
 * the workspace's pnpm store. A dependency found in neither is left out: importing it then fails
 * with the package's name.
 */
function linkDependencies(core: string, modules: string): void {
  const linked = linkModulesOf(join(repo, "packages/core/node_modules"), modules);
  const manifest = JSON.parse(readFileSync(join(core, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  const store = join(repo, "node_modules/.pnpm");
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    if (linked.has(name)) continue;
    const folder = readdirSync(store).find((entry) =>
      entry.startsWith(`${name.replace("/", "+")}@`),
    );
    if (!folder) continue;
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(store, folder, "node_modules", name), join(modules, name), "dir");
  }
}

/** `packages/<name>` at `commit`, extracted once under `root`; answers its folder. */
function extractPackage(commit: string, root: string, name: string): string {
  const folder = join(root, "packages", name);
  if (!existsSync(join(folder, "src/index.ts"))) {
    mkdirSync(root, { recursive: true });
    const archive = execFileSync("git", ["archive", "--format=tar", commit, `packages/${name}`], {
      cwd: repo,
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync("tar", ["-x", "-C", root], { input: archive });
  }
  return folder;
}

/**
 * Links into `modules` each package of the `node_modules` folder `today` (scoped ones one by one),
 * but those in `skip`; answers the names linked.
 */
function linkModulesOf(today: string, modules: string, skip: readonly string[] = []): Set<string> {
  const linked = new Set<string>();
  for (const entry of readdirSync(today)) {
    if (entry.startsWith(".")) continue;
    const names = entry.startsWith("@")
      ? readdirSync(join(today, entry)).map((scoped) => `${entry}/${scoped}`)
      : [entry];
    for (const name of names) {
      if (skip.includes(name)) continue;
      mkdirSync(dirname(join(modules, name)), { recursive: true });
      symlinkSync(join(today, name), join(modules, name), "dir");
      linked.add(name);
    }
  }
  return linked;
}

/**
 * `packages/<name>` at `commit`, extracted beside the baseline's core: its `@keyward/core` links to
 * that core, every other dependency to the one today's package has.
 */
async function importBaselinePackage(
  commit: string,
  root: string,
  name: string,
): Promise<Record<string, unknown>> {
  const folder = extractPackage(commit, root, name);
  const modules = join(folder, "node_modules");
  if (!existsSync(modules)) {
    linkModulesOf(join(repo, "packages", name, "node_modules"), modules, ["@keyward/core"]);
    mkdirSync(join(modules, "@keyward"), { recursive: true });
    symlinkSync(join(root, "packages/core"), join(modules, "@keyward/core"), "dir");
  }
  return await import(pathToFileURL(join(folder, "src/index.ts")).href);
}

/**
 * Where the baseline's entry `@keyward/core/<entry>` has its source: as its package.json exports
 * it (`src/features/<entry>/` since the layout of 9bc8043), else `src/<entry>/` (before it).
 */
function featureSource(core: string, entry: string): string | undefined {
  const manifest = JSON.parse(readFileSync(join(core, "package.json"), "utf8")) as {
    exports?: Record<string, Record<string, string> | string>;
  };
  const exported = manifest.exports?.[`./${entry}`];
  const source = typeof exported === "object" ? exported["@keyward/source"] : undefined;
  const file = join(core, source ?? join("src", entry, "index.ts"));
  return existsSync(file) ? file : undefined;
}
