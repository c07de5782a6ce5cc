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
