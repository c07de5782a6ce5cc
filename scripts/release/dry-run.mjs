#!/usr/bin/env node
/**
 * The release, rehearsed without publishing: in a throwaway copy of the working tree, run
 * `changeset version` (with one extra `minor` changeset, so there is always something to release),
 * then pack every package as `changeset publish` would (pnpm), and check what would go to npm:
 *
 * - every package gets the same new version (the fixed group), and not a new major unless a
 *   changeset asks for one: changesets bumps a peer-dependent to a major whenever its peer
 *   leaves the range, which on 0.x would turn every minor release into 1.0.0;
 * - every package gets a CHANGELOG.md with an entry for that version (the `changelog` setting);
 * - no `workspace:` range survives in a packed package.json, and every range on another
 *   `@keyward/*` package (dependencies and peers) accepts the version released with it.
 *
 * Nothing in the repository changes. Run it as `pnpm release:dry-run` (CI does).
 */
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import semver from "semver";
import { packAll, packedManifest, pnpm, publishablePackages, repositoryRoot } from "./pack.mjs";

const problems = [];
const work = mkdtempSync(path.join(tmpdir(), "keyward-release-dry-run-"));
try {
  copyWorkingTree(repositoryRoot, work);
  // As after a clone: the changelog generator is a dependency, and pnpm packs a workspace: range
  // with the version of the package it finds installed.
  pnpm(["install", "--frozen-lockfile", "--prefer-offline", "--ignore-scripts"], { cwd: work });
  const before = publishablePackages(work);
  const askedForMajor = pendingChangesets(work).some((text) =>
    /^\s*"[^"]+":\s*major\s*$/m.test(text),
  );

  writeFileSync(
    path.join(work, ".changeset", "release-dry-run.md"),
    `---\n"${before[0].name}": minor\n---\n\nRelease dry run.\n`,
  );
  git(work, ["add", ".changeset"]);
  git(work, ["commit", "-q", "-m", "release dry run: pending changesets"]);

  run(path.join(work, "node_modules", ".bin", "changeset"), ["version"], work);
  const after = publishablePackages(work);
  const version = after[0].version;

  const versions = new Set(after.map((found) => found.version));
  if (versions.size !== 1) {
    problems.push(
      `the fixed group split: ${after.map((p) => `${p.name}@${p.version}`).join(", ")}`,
    );
  }
  for (const { name, version: old } of before) {
    const now = after.find((found) => found.name === name)?.version;
    if (!now || !semver.gt(now, old)) problems.push(`${name} was not bumped (${old} → ${now})`);
    else if (!askedForMajor && semver.major(now) !== semver.major(old)) {
      problems.push(`${name} went ${old} → ${now}, a major no changeset asked for`);
    }
  }
  for (const { name, folder, version: now } of after) {
    const changelog = path.join(folder, "CHANGELOG.md");
    if (!existsSync(changelog)) problems.push(`${name} got no CHANGELOG.md`);
    else if (!readFileSync(changelog, "utf8").includes(`## ${now}\n`)) {
      problems.push(`${name}'s CHANGELOG.md has no entry for ${now}`);
    }
  }

  const releasedVersions = new Map(after.map((found) => [found.name, found.version]));
  for (const { name, tarball } of packAll(path.join(work, ".packed"), work)) {
    const manifest = packedManifest(tarball);
    const text = JSON.stringify(manifest);
    if (text.includes("workspace:"))
      problems.push(`${name}'s packed package.json has a workspace: range`);
    if (manifest.version !== releasedVersions.get(name)) {
      problems.push(`${name} packed as ${manifest.version}, not ${releasedVersions.get(name)}`);
    }
    for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
      for (const [dependency, range] of Object.entries(manifest[field] ?? {})) {
        const released = releasedVersions.get(dependency);
        if (released && !semver.satisfies(released, range)) {
          problems.push(
            `${name}'s ${field} ask for ${dependency}@${range}, released as ${released}`,
          );
        }
      }
    }
  }

  if (problems.length === 0) {
    console.log(
      `release dry run: ${before.length} packages ${before[0].version} → ${version}, each with a ` +
        "CHANGELOG.md entry; packed by pnpm with no workspace: range, internal ranges satisfied",
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (problems.length > 0) {
  console.error(`release dry run failed:\n- ${problems.join("\n- ")}`);
  process.exit(1);
}

/**
 * Copies what git would see (tracked files and untracked ones not ignored, as they are now, so
 * uncommitted changes count) and commits it in a fresh repository: changesets reads commits for its
 * changelog lines.
 */
function copyWorkingTree(from, to) {
  const files = git(from, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
    .split("\0")
    .filter((file) => file && existsSync(path.join(from, file)));
  for (const file of files) {
    mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    cpSync(path.join(from, file), path.join(to, file), { verbatimSymlinks: true });
  }
  git(to, ["init", "-q"]);
  git(to, ["add", "-A"]);
  git(to, ["commit", "-q", "-m", "release dry run: working tree"]);
}

function pendingChangesets(workspace) {
  const directory = path.join(workspace, ".changeset");
  return git(workspace, ["ls-files", ".changeset/*.md"])
    .split("\n")
    .filter((file) => file && !file.endsWith("README.md"))
    .map((file) => readFileSync(path.join(directory, path.basename(file)), "utf8"));
}

function git(cwd, args) {
  return run(
    "git",
    ["-c", "user.name=release dry run", "-c", "user.email=dry-run@keyward.invalid", ...args],
    cwd,
  );
}

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new Error(`could not run ${command}: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed (exit ${result.status})\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}
