#!/usr/bin/env node
/**
 * The packages as the release packs them (pnpm, see pack.mjs), packed once and checked by:
 *
 * - publint, strict: the `exports`, `types`, files and fields of each tarball;
 * - Are the types wrong (`@arethetypeswrong/cli`), profile `esm-only`: the packages are ESM only by
 *   design (one module format to build, test and ship; `engines.node >= 20.19`, where `require()`
 *   of ESM works), so attw's
 *   CommonJS resolutions (`node10`, `node16` from CJS) would only report that a `require` resolves
 *   to ESM, which is the intent. Every entry point must resolve, with its types, under `node16`
 *   from ESM and under `bundler`.
 *
 *   node scripts/release/check-packages.mjs            both (build first; .ci/run's step)
 *   node scripts/release/check-packages.mjs --publint  publint only (pnpm publint)
 *   node scripts/release/check-packages.mjs --attw     attw only (pnpm attw)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { packAll, repositoryRoot } from "./pack.mjs";
import { contentsProblems, tarballFiles } from "./package-contents.mjs";

const only = process.argv.slice(2);
const runPublint = only.length === 0 || only.includes("--publint");
const runAttw = only.length === 0 || only.includes("--attw");

const attw = path.join(repositoryRoot, "node_modules", ".bin", "attw");
const destination = mkdtempSync(path.join(tmpdir(), "keyward-packages-"));
const failed = [];
try {
  for (const { name, tarball } of packAll(destination)) {
    console.log(`\n${name}`);
    // What it ships: no tests, maps without a copy of the source and pointing at shipped files,
    // under its size budget (scripts/release/package-contents.mjs).
    const contents = contentsProblems(name, tarballFiles(readFileSync(tarball)));
    console.log(
      `contents: ${contents.files} files, ${contents.unpacked.toLocaleString("en")} bytes unpacked`,
    );
    for (const problem of contents.problems) console.log(`contents: ${problem}`);
    if (contents.problems.length > 0) failed.push(`${name} (contents)`);
    if (runPublint && !(await publintClean(tarball))) failed.push(`${name} (publint)`);
    if (runAttw) {
      const result = spawnSync(
        attw,
        ["--profile", "esm-only", "--format", "table-flipped", tarball],
        { stdio: "inherit" },
      );
      if (result.status !== 0) failed.push(`${name} (attw)`);
    }
  }
} finally {
  rmSync(destination, { recursive: true, force: true });
}
const checks = [runPublint && "publint --strict", runAttw && "attw, profile esm-only"]
  .filter(Boolean)
  .join(" and ");
if (failed.length > 0) {
  console.error(`\nproblems in ${failed.join(", ")}`);
  process.exit(1);
}
console.log(`\nevery package clean: ${checks}`);

/** publint, strict, on the tarball: prints every message; clean when there is none. */
async function publintClean(tarball) {
  const bytes = readFileSync(tarball);
  const { messages, pkg } = await publint({
    pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
    strict: true,
  });
  for (const message of messages) {
    console.log(`publint ${message.type}: ${formatMessage(message, pkg, { color: false })}`);
  }
  if (messages.length === 0) console.log("publint: clean");
  return messages.length === 0;
}
