#!/usr/bin/env node
/**
 * Bun and Deno for the examples, installed on first use. They are not dependencies of any workspace
 * package: as devDependencies of examples/fetch they made every `pnpm install` carry some 200 MB of
 * binaries that only `pnpm start bun|deno` and the runtime tests need. Instead, the first of those
 * installs the pinned version below from npm (the same package pnpm used to install, with its
 * postinstall picking the platform's binary) into `.cache/runtimes/` (gitignored), and every later
 * run reuses it without touching the network.
 *
 *   node scripts/runtimes.mjs [bun] [deno]    installs what is missing; prints each binary's path
 *
 * `scripts/start.mjs` puts the directory `ensureRuntime` returns first on PATH, so the examples'
 * `start:bun` and `start:deno` scripts run the pinned binaries.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const windows = process.platform === "win32";

/**
 * The pinned runtimes: the npm package of the same name at this version, and where its postinstall
 * leaves the real binary inside the package (not the Node shim npm links into `.bin`, so signals
 * reach the runtime itself).
 */
export const runtimes = {
  bun: { version: "1.4.5", binary: ["bin", "bun.exe"] },
  deno: { version: "2.9.6", binary: [windows ? "deno.exe" : "deno"] },
};

/** Where the runtimes are kept; one folder per name and version, so a new pin never reuses an old one. */
export const runtimesDirectory = path.join(root, ".cache", "runtimes");

/**
 * Installs the pinned `name` if it is not there yet and returns the directory holding an executable
 * called `name` (for PATH). Throws, saying why, when the install or the binary's self-check fails.
 *
 * @example
 * const bin = ensureRuntime("deno");
 * spawn("deno", ["--version"], { env: { ...process.env, PATH: bin + path.delimiter + process.env.PATH } });
 */
export function ensureRuntime(name) {
  const runtime = runtimes[name];
  if (!runtime)
    throw new Error(`unknown runtime "${name}"; known: ${Object.keys(runtimes).join(", ")}`);
  const directory = path.join(runtimesDirectory, `${name}-${runtime.version}`);
  const bin = binDirectory(directory, name);
  if (existsSync(path.join(bin, executableName(name)))) return bin;

  console.error(
    `installing ${name} ${runtime.version} from npm into ${path.relative(root, directory)} (first use)`,
  );
  mkdirSync(runtimesDirectory, { recursive: true });
  // Installed beside its final place and renamed into it when complete, so an interrupted install
  // is never mistaken for a finished one, and two processes installing at once cannot mix files.
  const staging = mkdtempSync(path.join(runtimesDirectory, `.${name}-`));
  try {
    writeFileSync(path.join(staging, "package.json"), '{ "private": true }\n');
    npmInstall(staging, `${name}@${runtime.version}`);
    const binary = path.join(staging, "node_modules", name, ...runtime.binary);
    checkVersion(binary, name, runtime.version);
    linkExecutable(staging, name, runtime.binary);
    try {
      renameSync(staging, directory);
    } catch (error) {
      // Another process finished the same install first: use its copy.
      if (!existsSync(path.join(bin, executableName(name)))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return bin;
}

function npmInstall(prefix, spec) {
  const result = spawnSync(
    windows ? "npm.cmd" : "npm",
    [
      "install",
      spec,
      `--prefix=${prefix}`,
      // Said explicitly because a package manager running this script may pass its own settings
      // down as npm_config_* variables: the binary arrives through an optional dependency and the
      // package's postinstall.
      "--include=optional",
      "--ignore-scripts=false",
      "--global=false",
      "--save=false",
      "--package-lock=false",
      "--audit=false",
      "--fund=false",
      "--loglevel=error",
    ],
    // npm's output goes to stderr: stdout is for the paths this script prints.
    { stdio: ["ignore", 2, 2], shell: windows, timeout: 600_000 },
  );
  if (result.error) throw new Error(`could not run npm: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`npm install ${spec} failed (exit ${result.status})`);
}

function checkVersion(binary, name, version) {
  const result = spawnSync(binary, ["--version"], { encoding: "utf8", timeout: 60_000 });
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`.trim();
  if (result.status !== 0 || !output.includes(version)) {
    throw new Error(
      `the installed ${name} does not run as ${name} ${version}: ${result.error?.message ?? output}`,
    );
  }
}

/** On POSIX, `bin/<name>` links to the binary (bun's is called bun.exe everywhere). */
function linkExecutable(directory, name, binary) {
  if (windows) return;
  mkdirSync(path.join(directory, "bin"));
  // Relative, so the link survives the rename from the staging folder.
  symlinkSync(path.join("..", "node_modules", name, ...binary), path.join(directory, "bin", name));
}

function binDirectory(directory, name) {
  return windows
    ? path.join(directory, "node_modules", name, ...runtimes[name].binary.slice(0, -1))
    : path.join(directory, "bin");
}

function executableName(name) {
  return windows ? `${name}.exe` : name;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(runtimes);
  try {
    for (const name of names) {
      console.log(path.join(ensureRuntime(name), executableName(name)));
    }
  } catch (error) {
    console.error(`runtimes: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  }
}
