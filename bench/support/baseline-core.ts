/**
 * `@keyward/core` as it was at another commit, loaded beside the current one, so a benchmark can
 * compare the two in one process and one run ("no slower than before" as a ratio measured under
 * the same load, not two figures from two runs). The commit's `packages/core` is extracted once
 * into the system's temp folder and imported from source through tsx, with today's dependencies.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
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

export async function importBaselineCore(
  ref: string,
): Promise<typeof import("@keyward/core") & { commit: string }> {
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
  if (!existsSync(modules)) symlinkSync(join(repo, "packages/core/node_modules"), modules, "dir");
  const loaded = await import(pathToFileURL(join(core, "src/index.ts")).href);
  return { ...loaded, commit };
}
