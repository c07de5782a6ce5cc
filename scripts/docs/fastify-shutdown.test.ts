/**
 * The Fastify guide's app, as printed, loses no usage on SIGTERM (a deploy, `docker stop`): its
 * signal handling closes the app, whose `onClose` closes Keyward, which writes the buffered usage.
 * The guide's `app.ts` block runs in a child process against a `keyward.ts` of ours whose usage
 * store appends each write to a file, so the test can see what was written before the process
 * ended. Without the guide's signal handling, Node exits at once on SIGTERM and nothing is written.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { codeBlocks, repositoryRoot } from "./code-blocks.js";

const appBlock = codeBlocks("docs/fastify.md").find(
  (block) => block.language === "ts" && block.code.startsWith("// app.ts"),
);
// tsx from a workspace package that has it: this folder is not one, so `--import tsx` would not resolve.
const tsxLoader = pathToFileURL(
  path.join(repositoryRoot, "bench/node_modules/tsx/dist/loader.mjs"),
).href;
const source = (file: string) =>
  JSON.stringify(pathToFileURL(path.join(repositoryRoot, file)).href);

/** A Keyward whose usage writes land in `usage.jsonl`, with one key printed at start. */
const keywardModule = `
import { appendFileSync } from "node:fs";
import { createKeyward, memoryStore } from ${source("packages/core/src/index.ts")};
const store = memoryStore();
const usage = {
  ...store.usage,
  async record(increments) {
    appendFileSync("usage.jsonl", JSON.stringify(increments) + "\\n");
    return store.usage.record(increments);
  },
};
export const keyward = createKeyward({
  store: { ...store, usage },
  scopes: { "profile:read": "Read profiles", "profile:write": "Edit profiles" },
  tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
  jwt: false,
  logger: false,
  usage: { flushIntervalMs: 60_000 }, // nothing is written before shutdown but by close()
});
const { key } = await keyward.keys.create({
  ownerId: "alice", accountTier: "free", name: "k", scopes: ["profile:read"], tier: "free",
});
console.log("KEY " + key);
`;

describe("the Fastify guide's app on SIGTERM", () => {
  let directory: string | undefined;
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill("SIGKILL");
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  it("writes the buffered usage before it exits", async () => {
    expect(appBlock, "docs/fastify.md has an app.ts block").toBeDefined();
    directory = mkdtempSync(path.join(repositoryRoot, "scripts/docs/.fastify-"));
    writeFileSync(path.join(directory, "keyward.ts"), keywardModule);
    const app = appBlock!.code
      .replace('from "@keyward/fastify"', `from ${source("packages/fastify/src/index.ts")}`)
      .replace(
        'from "fastify"',
        `from ${source("packages/fastify/node_modules/fastify/fastify.js")}`,
      )
      .replace("logger: true", "logger: false")
      .replace("app.listen({ port: 3000 })", 'app.listen({ port: 0, host: "127.0.0.1" })');
    writeFileSync(
      path.join(directory, "app.ts"),
      `${app}\nconsole.log("URL " + app.listeningOrigin);\n`,
    );

    const running = spawn(
      process.execPath,
      ["--conditions=@keyward/source", "--import", tsxLoader, "app.ts"],
      {
        cwd: directory,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    child = running;
    let output = "";
    running.stdout!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    running.stderr!.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    const started = Date.now();
    while (!/^URL /m.test(output)) {
      if (running.exitCode !== null || Date.now() - started > 30_000) throw new Error(output);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const key = /^KEY (\S+)$/m.exec(output)![1]!;
    const url = /^URL (\S+)$/m.exec(output)![1]!;
    const reply = await fetch(`${url}/api/v1/profiles/ada`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(reply.status).toBe(200);

    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGTERM");
    await exited;
    const written = readFileSync(path.join(directory, "usage.jsonl"), "utf8");
    expect(written).toContain('"route":"/api/v1/profiles/:slug"');
  }, 60_000);
});
