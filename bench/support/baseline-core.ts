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
  const core = join(root, "packages/core");
  if (!existsSync(join(core, "src/index.ts"))) {
    mkdirSync(root, { recursive: true });
    const archive = execFileSync("git", ["archive", "--format=tar", commit, "packages/core"], {
      cwd: repo,
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync("tar", ["-x", "-C", root], { input: archive });
  }
  const modules = join(core, "node_modules");
  if (!existsSync(modules)) linkDependencies(core, modules);
  const loaded = await import(pathToFileURL(join(core, "src/index.ts")).href);
  return {
    ...loaded,
    commit,
    workspacePackage: (name: string) => importBaselinePackage(commit, root, name),
    feature: async (entry: string) => {
      const file = join(core, "src", entry, "index.ts");
      return existsSync(file) ? await import(pathToFileURL(file).href) : undefined;
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
  const today = join(repo, "packages/core/node_modules");
  mkdirSync(modules, { recursive: true });
  const linked = new Set<string>();
  const link = (name: string, target: string) => {
    const at = join(modules, name);
    mkdirSync(dirname(at), { recursive: true });
    symlinkSync(target, at, "dir");
    linked.add(name);
  };
  for (const entry of readdirSync(today)) {
    if (entry.startsWith(".")) continue;
    if (entry.startsWith("@")) {
      for (const scoped of readdirSync(join(today, entry))) {
        link(`${entry}/${scoped}`, join(today, entry, scoped));
      }
    } else {
      link(entry, join(today, entry));
    }
  }
  const manifest = JSON.parse(readFileSync(join(core, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  const store = join(repo, "node_modules/.pnpm");
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    if (linked.has(name)) continue;
    const folder = readdirSync(store).find((entry) =>
      entry.startsWith(`${name.replace("/", "+")}@`),
    );
    if (folder) link(name, join(store, folder, "node_modules", name));
  }
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
  const folder = join(root, "packages", name);
  if (!existsSync(join(folder, "src/index.ts"))) {
    const archive = execFileSync("git", ["archive", "--format=tar", commit, `packages/${name}`], {
      cwd: repo,
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync("tar", ["-x", "-C", root], { input: archive });
  }
  const modules = join(folder, "node_modules");
  if (!existsSync(modules)) {
    const today = join(repo, "packages", name, "node_modules");
    mkdirSync(join(modules, "@keyward"), { recursive: true });
    symlinkSync(join(root, "packages/core"), join(modules, "@keyward/core"), "dir");
    for (const entry of readdirSync(today)) {
      if (entry.startsWith(".")) continue;
      const scopedNames = entry.startsWith("@")
        ? readdirSync(join(today, entry)).map((scoped) => `${entry}/${scoped}`)
        : [entry];
      for (const dependency of scopedNames) {
        if (dependency === "@keyward/core") continue;
        mkdirSync(dirname(join(modules, dependency)), { recursive: true });
        symlinkSync(join(today, dependency), join(modules, dependency), "dir");
      }
    }
  }
  return await import(pathToFileURL(join(folder, "src/index.ts")).href);
}
