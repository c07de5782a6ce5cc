/**
 * The demo's OpenAPI document (every feature listed) passes Redocly's linter with its recommended
 * rules and no error: what a team's API tooling will run on it first. Warnings (unused components,
 * operations without a 4xx of their own, no license) are printed, not failed on.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createKeyward, memoryStore } from "@keyward/core";
import { afterAll, describe, expect, it } from "vitest";
import { loadDemoConfig } from "../src/config.js";
import { demoKeywardOptions } from "../src/create-demo.js";

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const redocly = path.join(root, "node_modules/.bin/redocly");
const directory = mkdtempSync(path.join(tmpdir(), "keyward-openapi-lint-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

interface Problem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: { pointer?: string }[];
}

async function lint(document: unknown): Promise<Problem[]> {
  const file = path.join(directory, "openapi.json");
  writeFileSync(file, JSON.stringify(document));
  // Exit 1 when there are errors: the report is on stdout either way.
  const { stdout } = await run(redocly, ["lint", file, "--format=json"], {
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
  return (JSON.parse(stdout) as { problems: Problem[] }).problems;
}

describe("the demo's OpenAPI document under Redocly's linter", () => {
  it("has no error", async () => {
    const keyward = createKeyward({
      store: memoryStore(),
      ...demoKeywardOptions(loadDemoConfig({})),
    });
    try {
      const problems = await lint(keyward.openapi());
      const warnings = problems.filter((problem) => problem.severity === "warn");
      console.log(
        `[redocly] ${warnings.length} warnings: ${[...new Set(warnings.map((w) => w.ruleId))].join(", ")}`,
      );
      const errors = problems
        .filter((problem) => problem.severity === "error")
        .map(
          (problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`,
        );
      expect(errors).toEqual([]);
    } finally {
      await keyward.close();
    }
  }, 60_000);

  it("finds errors when there are some, so the check above can fail", async () => {
    const problems = await lint({ openapi: "3.1.0", info: { title: "broken" }, paths: {} });
    expect(problems.some((problem) => problem.severity === "error")).toBe(true);
  }, 60_000);
});
