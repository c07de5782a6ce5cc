/**
 * @keyward/hono on Bun's own server (`Bun.serve`, client address from `hono/bun`'s getConnInfo),
 * driven over HTTP by the conformance suite. Bun is the pinned binary scripts/runtimes.mjs installs
 * from npm on first use; it runs the TypeScript sources directly.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeHttpConformance, forwardTo } from "@keyward/testing";
import { afterAll, beforeAll, expect } from "vitest";
import { jwtSecret } from "./demo.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const repositoryRoot = path.resolve(here, "../../..");
let bun: ChildProcess | undefined;
let origin = "";

beforeAll(async () => {
  // First use downloads Bun from npm; later runs reuse .cache/runtimes without the network.
  const installed = spawnSync(process.execPath, ["scripts/runtimes.mjs", "bun"], {
    cwd: repositoryRoot,
    encoding: "utf8",
  });
  expect(installed.status, installed.stderr).toBe(0);
  const binary = installed.stdout.trim().split("\n").at(-1)!;
  bun = spawn(binary, ["--no-install", "--conditions=@keyward/source", "test/bun-server.ts"], {
    cwd: path.resolve(here, ".."),
    stdio: ["ignore", "pipe", "inherit"],
  });
  origin = await new Promise<string>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`Bun did not listen:\n${output}`)), 30_000);
    bun!.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      const listening = /^listening (http:\/\/\S+)$/m.exec(output);
      if (listening) {
        clearTimeout(timer);
        resolve(listening[1]!);
      }
    });
    bun!.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Bun exited with ${code} before listening:\n${output}`));
    });
  });
}, 300_000);

afterAll(async () => {
  if (!bun || bun.exitCode !== null) return;
  const exited = new Promise((resolve) => bun!.once("exit", resolve));
  bun.kill("SIGTERM");
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  if (bun.exitCode === null) bun.kill("SIGKILL");
});

describeHttpConformance("@keyward/hono on Bun", {
  fetch: forwardTo(() => origin),
  jwtSecret,
  organizations: true,
  // The demo's `developer` role grants only the profile scopes (v0.3).
  roleGrants: true,
  keyUpdates: true,
  gracefulRotation: true,
  events: true,
  // The profile routes pass `resource: { profile: slug }` (demo contract v0.3).
  resources: true,
});
