#!/usr/bin/env node
/**
 * The release packing: every publishable package of a workspace packed by pnpm, exactly as
 * `changeset publish` (which runs `pnpm publish`) would pack it. pnpm, unlike npm, rewrites the
 * `workspace:` ranges into real ones; `npm pack` copies `"@keyward/core": "workspace:^"` into the
 * tarball as it is, and such a package cannot be installed.
 *
 *   node scripts/release/pack.mjs DESTINATION [WORKSPACE]
 *       packs into DESTINATION (created if missing); prints a JSON array of
 *       { name, version, tarball } on stdout
 *
 * It packs what is built: run `pnpm build` first (`pnpm release` does).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Runs pnpm 10 as README tells users to (`npx -y pnpm@10`); throws with its output on failure. */
export function pnpm(args, options = {}) {
  const result = spawnSync("npx", ["-y", "pnpm@10", ...args], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    ...options,
    env: { ...process.env, npm_config_yes: "true", ...options.env },
  });
  if (result.error) throw new Error(`could not run pnpm: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(
      `pnpm ${args.join(" ")} failed (exit ${result.status})\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

/** The packages `pnpm publish -r` would publish: every package under packages/ not marked private. */
export function publishablePackages(workspace = repositoryRoot) {
  const directory = path.join(workspace, "packages");
  return readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => {
      const folder = path.join(directory, entry.name);
      const manifest = JSON.parse(readFileSync(path.join(folder, "package.json"), "utf8"));
      return { name: manifest.name, version: manifest.version, private: manifest.private, folder };
    })
    .filter((found) => !found.private)
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Packs every publishable package of `workspace` into `destination`; returns what it packed. */
export function packAll(destination, workspace = repositoryRoot) {
  mkdirSync(destination, { recursive: true });
  const packages = publishablePackages(workspace);
  pnpm(["-r", "--filter", "./packages/*", "pack", "--pack-destination", destination], {
    cwd: workspace,
  });
  return packages.map(({ name, version }) => {
    // pnpm's tarball name: the scope without "@", joined to the name by "-".
    const tarball = path.join(
      destination,
      `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`,
    );
    if (!existsSync(tarball))
      throw new Error(`pnpm packed no ${path.basename(tarball)} for ${name}`);
    return { name, version, tarball };
  });
}

/** The package.json inside a packed tarball, as npm will read it. */
export function packedManifest(tarball) {
  const result = spawnSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" });
  if (result.status !== 0)
    throw new Error(`cannot read package.json from ${tarball}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [destination, workspace] = process.argv.slice(2);
  if (!destination) {
    console.error("usage: node scripts/release/pack.mjs DESTINATION [WORKSPACE]");
    process.exit(2);
  }
  try {
    const packed = packAll(path.resolve(destination), path.resolve(workspace ?? repositoryRoot));
    console.log(JSON.stringify(packed, null, 2));
  } catch (error) {
    console.error(`pack: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
}
