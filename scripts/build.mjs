/**
 * Builds the `@keyward/*` packages: each package's JavaScript with its own tsup configuration, and
 * every package's declarations with one TypeScript program (`tsconfig.declarations.json`), which
 * are then copied into each package's `dist/` beside its JavaScript (`src/a/b.ts` →
 * `dist/a/b.d.ts`, the layout the `types` conditions of the packages' exports name).
 *
 * One program for the whole workspace checks and emits in about 12 s on two cores; tsup's
 * declaration bundling ran one program per package, 14 to 25 s each (docs/benchmarks.md, "CI").
 *
 *   node scripts/build.mjs            every package (`pnpm build`)
 *   node scripts/build.mjs core cli   those packages
 *   (in a package's folder)           that package (its `build` script)
 *
 * Fails when the program reports an error, when an export's `types` file is missing, or when a
 * declaration imports a relative path outside its own package (a type that could not be named
 * from the package's entry points would otherwise ship as a path into another package's source).
 */
import { spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const packagesDir = path.join(root, "packages");
// One folder per run, so that builds started together (`pnpm -r build`) never share one.
const declarationsDir = path.join(root, ".declarations", `run-${process.pid}`);

const everyPackage = readdirSync(packagesDir).filter((name) =>
  existsSync(path.join(packagesDir, name, "package.json")),
);
const named = process.argv.slice(2);
const fromCwd = path.relative(packagesDir, process.cwd());
const packages =
  named.length > 0
    ? named
    : !fromCwd.startsWith("..") && fromCwd !== "" && !fromCwd.includes(path.sep)
      ? [fromCwd]
      : everyPackage;
for (const name of packages) {
  if (!everyPackage.includes(name)) fail(`no package named ${name} under packages/`);
}

rmSync(declarationsDir, { recursive: true, force: true });
const started = performance.now();
const [declarations] = await Promise.all([
  run(
    "npx",
    ["tsc", "-p", path.join(root, "tsconfig.declarations.json"), "--outDir", declarationsDir],
    root,
  ),
  buildJavaScript(packages),
]);
if (declarations !== 0) fail("the declarations program reported errors (above)");

const problems = [];
for (const name of packages) {
  const from = path.join(declarationsDir, "packages", name, "src");
  const dist = path.join(packagesDir, name, "dist");
  if (!existsSync(from)) fail(`no declarations were emitted for packages/${name}/src`);
  cpSync(from, dist, { recursive: true });
  repointDeclarationMaps(from, dist);
  problems.push(...missingTypes(name), ...escapingImports(name, dist));
}
rmSync(declarationsDir, { recursive: true, force: true });
try {
  rmdirSync(path.dirname(declarationsDir)); // only when no other build is using it
} catch {}
if (problems.length > 0) fail(problems.join("\n"));
console.log(
  `built ${packages.length} package(s) with declarations in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

/**
 * The declaration maps were written where the program emitted them; copied into `dist/`, their
 * `sources` must lead from there to the same `src/` file (`../src/a/b.ts` from `dist/a/b.d.ts.map`
 * becomes `../../src/a/b.ts`).
 */
function repointDeclarationMaps(from, dist) {
  for (const entry of readdirSync(dist, { recursive: true })) {
    const file = String(entry);
    if (!file.endsWith(".d.ts.map")) continue;
    const copied = path.join(dist, file);
    const map = JSON.parse(readFileSync(copied, "utf8"));
    const emittedIn = path.dirname(path.join(from, file));
    map.sources = map.sources.map((source) =>
      path
        .relative(path.dirname(copied), path.resolve(emittedIn, map.sourceRoot ?? "", source))
        .split(path.sep)
        .join("/"),
    );
    delete map.sourceRoot;
    writeFileSync(copied, JSON.stringify(map));
  }
}

/** tsup in each package, two at a time (two cores; the declarations program runs beside them). */
async function buildJavaScript(names) {
  const queue = [...names];
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const code = await run("npx", ["tsup"], path.join(packagesDir, name));
      if (code !== 0) fail(`tsup failed in packages/${name}`);
    }
  };
  await Promise.all([worker(), worker()]);
}

/** Every `types` file the package's exports name, missing from its dist. */
function missingTypes(name) {
  const manifest = JSON.parse(readFileSync(path.join(packagesDir, name, "package.json"), "utf8"));
  const named = [];
  const walk = (entry) => {
    if (entry === null || typeof entry !== "object") return;
    for (const [condition, value] of Object.entries(entry)) {
      if (condition === "types" && typeof value === "string") named.push(value);
      else walk(value);
    }
  };
  walk(manifest.exports);
  return named
    .filter((file) => !existsSync(path.join(packagesDir, name, file)))
    .map((file) => `packages/${name}: exports name ${file}, which the build did not make`);
}

/** Relative imports in the package's declarations that leave the package. */
function escapingImports(name, dist) {
  const found = [];
  const specifier = /(?:from\s+|import\()\s*"(\.[^"]*)"/g;
  for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".d.ts")) continue;
    const file = path.join(entry.parentPath, entry.name);
    for (const [, relative] of readFileSync(file, "utf8").matchAll(specifier)) {
      const target = path.resolve(entry.parentPath, relative);
      if (!target.startsWith(dist + path.sep)) {
        found.push(`${path.relative(root, file)} imports ${relative}, outside packages/${name}`);
      }
    }
  }
  return found;
}

function run(command, args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: "inherit" });
    child.on("close", (code) => resolve(code ?? 1));
  });
}

function fail(message) {
  console.error(`build: ${message}`);
  process.exit(1);
}
