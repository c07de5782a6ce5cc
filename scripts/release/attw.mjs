#!/usr/bin/env node
/**
 * Are the types wrong? `@arethetypeswrong/cli` on every package as the release packs it (pnpm, see
 * pack.mjs), not as `attw --pack` would (that runs `npm pack`).
 *
 * Profile `esm-only`: the packages are ESM only by design (DESIGN.md; `engines.node >= 20.19`, where
 * `require()` of ESM works), so attw's CommonJS resolutions (`node10`, `node16` from CJS) would only
 * report that a `require` resolves to ESM, which is the intent. Every entry point must resolve, with
 * its types, under `node16` from ESM and under `bundler`.
 *
 *   node scripts/release/attw.mjs      (pnpm attw; build first)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { packAll, repositoryRoot } from "./pack.mjs";

const attw = path.join(repositoryRoot, "node_modules", ".bin", "attw");
const destination = mkdtempSync(path.join(tmpdir(), "keyward-attw-"));
const failed = [];
try {
  for (const { name, tarball } of packAll(destination)) {
    console.log(`\n${name}`);
    const result = spawnSync(
      attw,
      ["--profile", "esm-only", "--format", "table-flipped", tarball],
      {
        stdio: "inherit",
      },
    );
    if (result.status !== 0) failed.push(name);
  }
} finally {
  rmSync(destination, { recursive: true, force: true });
}
if (failed.length > 0) {
  console.error(`\nattw found problems in ${failed.join(", ")}`);
  process.exit(1);
}
console.log("\nattw: every package clean (profile esm-only)");
