/**
 * The packages as a user will get them: built, packed by pnpm exactly as the release packs them
 * (scripts/release/pack.mjs), installed with npm into a fresh project outside the workspace,
 * compiled with tsc under `moduleResolution` node16 and bundler (consumer/), and run on Node.
 *
 * It also guards the release packing: `npm pack` (and any packing that does not go through pnpm)
 * leaves `"@keyward/core": "workspace:^"` in a tarball, which npm then refuses to install with no
 * useful message; the first test names the package instead.
 */
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");

interface Packed {
  name: string;
  version: string;
  tarball: string;
}

describe("the packed packages, installed with npm in a fresh project", () => {
  let work = "";
  let project = "";
  let packed: Packed[] = [];

  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), "keyward-consumer-"));
    project = path.join(work, "project");
    buildStalePackages();
    const output = run(process.execPath, [
      path.join(here, "pack.mjs"),
      path.join(work, "tarballs"),
    ]);
    packed = JSON.parse(output) as Packed[];
  }, 600_000);
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("packs every package with real version ranges, the LICENSE and a README", () => {
    const license = readFileSync(path.join(root, "LICENSE"), "utf8");
    expect(packed.map((entry) => entry.name)).toEqual([
      "@keyward/cli",
      "@keyward/cloudflare",
      "@keyward/core",
      "@keyward/express",
      "@keyward/fastify",
      "@keyward/fetch",
      "@keyward/hono",
      "@keyward/metering",
      "@keyward/otel",
      "@keyward/postgres",
      "@keyward/redis",
      "@keyward/testing",
      "@keyward/ui",
      "@keyward/webhooks",
    ]);
    for (const { name, tarball } of packed) {
      const manifest = tarEntry(tarball, "package/package.json");
      expect(manifest, `${name}'s packed package.json`).not.toContain("workspace:");
      expect(tarEntry(tarball, "package/LICENSE"), `${name}'s LICENSE`).toBe(license);
      const files = run("tar", ["-tzf", tarball]).split("\n");
      expect(files, name).toContain("package/README.md");
      expect(files, name).toContain("package/dist/index.js");
      expect(files, name).toContain("package/dist/index.d.ts");
    }
  });

  it("installs them all with npm, peers included, outside the workspace", () => {
    expect(path.relative(root, project).startsWith("..")).toBe(true);
    mkdirSync(project);
    writeFileSync(
      path.join(project, "package.json"),
      `${JSON.stringify({ name: "keyward-consumer", private: true, type: "module" }, null, 2)}\n`,
    );
    run(
      "npm",
      [
        "install",
        ...packed.map((entry) => entry.tarball),
        "@types/node@^20.19.0",
        "@types/express@^5.0.0",
        // npm's defaults, said explicitly so an inherited npm_config_* cannot change them: peers
        // are installed and must agree (the adapters peer-depend on @keyward/core).
        "--legacy-peer-deps=false",
        "--strict-peer-deps=false",
        // The tarballs have no install scripts; the dependencies' scripts are not under test.
        "--ignore-scripts",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
      ],
      project,
    );
    const installed = JSON.parse(
      readFileSync(path.join(project, "node_modules", "@keyward", "fetch", "package.json"), "utf8"),
    ) as { peerDependencies: Record<string, string> };
    expect(Object.keys(installed.peerDependencies)).toContain("@keyward/core");
    // One copy of core, the host's: no package brought its own.
    const copies = readdirSync(path.join(project, "node_modules"), { recursive: true })
      .map(String)
      .filter((entry) => entry.endsWith(path.join("@keyward", "core", "package.json")));
    expect(copies).toEqual([path.join("@keyward", "core", "package.json")]);
    // The CLI's executable is linked and starts from the installed package.
    const help = run(path.join(project, "node_modules", ".bin", "keyward"), ["--help"], project);
    expect(help).toMatch(/^keyward — manage Keyward API keys/);
  }, 600_000);

  it.each(["node16", "bundler"])(
    "compiles a consumer with moduleResolution %s, which then creates and verifies a key on Node",
    (resolution) => {
      for (const file of readdirSync(path.join(here, "consumer"))) {
        copyFileSync(path.join(here, "consumer", file), path.join(project, file));
      }
      const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
      run(process.execPath, [tsc, "-p", `tsconfig.${resolution}.json`], project);

      const output = run(process.execPath, [`out-${resolution}/main.js`], project);
      expect(JSON.parse(output)).toEqual({
        verified: true,
        refusedStatus: 403,
        guardedStatus: 200,
        guardedBody: { viewer: "alice" },
        rateLimitHeader: "60",
        elsewhere: null,
        toolkit: "object",
      });
    },
    180_000,
  );
});

/**
 * Builds the packages whose `dist` is older than their sources (or missing), so the tarballs hold
 * what the sources say. In CI `.ci/run` has just built everything and nothing is rebuilt here.
 */
function buildStalePackages(): void {
  const shared = [
    "tsup.package.ts",
    "tsconfig.base.json",
    "tsconfig.declarations.json",
    "scripts/build.mjs",
  ].map((file) => path.join(root, file));
  const stale = readdirSync(path.join(root, "packages")).filter((name) => {
    const folder = path.join(root, "packages", name);
    const inputs = [
      ...shared,
      path.join(folder, "package.json"),
      path.join(folder, "tsup.config.ts"),
      ...filesUnder(path.join(folder, "src")),
    ];
    const outputs = filesUnder(path.join(folder, "dist"));
    if (outputs.length === 0) return true;
    const newestInput = Math.max(...inputs.map((file) => statSync(file).mtimeMs));
    const oldestOutput = Math.min(...outputs.map((file) => statSync(file).mtimeMs));
    return newestInput > oldestOutput;
  });
  if (stale.length === 0) return;
  // One declarations program serves every package named (scripts/build.mjs).
  run("node", [path.join(root, "scripts", "build.mjs"), ...stale], root);
}

function filesUnder(folder: string): string[] {
  try {
    return readdirSync(folder, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.join(entry.parentPath, entry.name));
  } catch {
    return [];
  }
}

function tarEntry(tarball: string, entry: string): string {
  return run("tar", ["-xzOf", tarball, entry]);
}

/** Runs a command to completion; its stdout, or an error with everything it printed. */
function run(command: string, args: string[], cwd = root): string {
  const result = spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, npm_config_yes: "true" },
  });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(
      `${path.basename(command)} ${args.join(" ")} exited with ${result.status}\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}
