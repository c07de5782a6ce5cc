#!/usr/bin/env node
/**
 * `pnpm start [example]`: runs one example's `start` script, forwarding its output, so a fresh
 * clone gives a working demo after `npx -y pnpm@10 install && npx -y pnpm@10 start`.
 *
 *   pnpm start              examples/fetch on Node (srvx)
 *   pnpm start express      examples/express
 *   pnpm start fastify      examples/fastify
 *   pnpm start hono         examples/hono (Hono on Node, @hono/node-server)
 *   pnpm start bun | deno   examples/fetch on Bun or Deno (pinned; scripts/runtimes.mjs installs
 *                           them from npm on first use)
 *
 * `KEYWARD_EXAMPLE` chooses too, when no argument is given. The script runs exactly the command in
 * the example's package.json, with its node_modules/.bin on PATH, as the package manager would.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureRuntime } from "./runtimes.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Name on the command line → the example's folder, which of its scripts to run, and the runtime
 * (from scripts/runtimes.mjs) that script needs on PATH besides Node.
 */
const targets = {
  fetch: { example: "fetch", script: "start" },
  node: { example: "fetch", script: "start" },
  bun: { example: "fetch", script: "start:bun", runtime: "bun" },
  deno: { example: "fetch", script: "start:deno", runtime: "deno" },
  express: { example: "express", script: "start" },
  fastify: { example: "fastify", script: "start" },
  hono: { example: "hono", script: "start" },
};

const name = process.argv[2] ?? process.env.KEYWARD_EXAMPLE ?? "fetch";
const target = targets[name];
if (!target) {
  fail(`unknown example "${name}"; choose one of: ${Object.keys(targets).join(", ")}`);
}

const directory = path.join(root, "examples", target.example);
const manifest = JSON.parse(readFileSync(path.join(directory, "package.json"), "utf8"));
const command = manifest.scripts?.[target.script];
if (!command) fail(`examples/${target.example} has no "${target.script}" script`);
const bin = path.join(directory, "node_modules", ".bin");
if (!existsSync(bin)) {
  fail("the examples' dependencies are not installed; run `npx -y pnpm@10 install` first");
}
let runtimeBin = [];
if (target.runtime) {
  try {
    runtimeBin = [ensureRuntime(target.runtime)];
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
}

const windows = process.platform === "win32";
const child = spawn(windows ? command : `exec ${command}`, {
  cwd: directory,
  stdio: ["ignore", "inherit", "inherit"],
  shell: true,
  // Its own process group, so a signal reaches whatever the start command spawned, not just the
  // process spawned here.
  detached: !windows,
  env: {
    ...process.env,
    PATH: [...runtimeBin, bin, path.join(root, "node_modules", ".bin"), process.env.PATH].join(
      path.delimiter,
    ),
    // The demo runs from node_modules alone: no update check reaching out to deno.land.
    DENO_NO_UPDATE_CHECK: "1",
  },
});

// Ctrl+C and `kill` reach this process; pass them on so the example can flush and close.
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    stopping = true;
    try {
      if (windows) child.kill(signal);
      else process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  });
}
child.on("error", (error) => fail(`could not run "${command}": ${error.message}`));
child.on("exit", (code, signal) => {
  // Stopped on request is a normal end, not a failure for the package manager to report.
  process.exitCode = stopping ? 0 : (code ?? (signal ? 1 : 0));
});

function fail(message) {
  console.error(`start: ${message}`);
  process.exit(1);
}
