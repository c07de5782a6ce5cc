/**
 * Timing project (vitest.timing.config.ts): the CLI gives up promptly, well before runCli's 30 s
 * kill, on an application whose configuration is refused after it connected and on stores nobody
 * listens on. failures.test.ts (unit suite) asserts the exit codes and messages.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type Application,
  type ApplicationOptions,
  applicationEnvironment,
  dropNaming,
  openApplication,
  uniqueNaming,
} from "./application.js";
import { closedPort, packageRoot, runCli, testApp } from "./run-cli.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const naming = uniqueNaming("failurestime");
const options: ApplicationOptions = { backends: "both", ...naming };
const env = applicationEnvironment(options);
const owner = `user_${crypto.randomUUID()}`;
let app: Application;

beforeAll(async () => {
  app = await openApplication(options);
});
afterAll(async () => {
  await app?.close();
  await dropNaming(naming);
});

const create = ["keys", "create", "--owner", owner, "--name", "n", "--scopes", "profile:read"];

describe("the CLI fails promptly", () => {
  it("on a configuration createKeyward refuses after the application connected", async () => {
    const result = await runCli([
      "keys",
      "list",
      "--owner",
      owner,
      "--app",
      path.join(packageRoot, "test", "fixtures", "refused-app.ts"),
    ]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.ms).toBeLessThan(15_000);
  });

  it.each([
    ["PostgreSQL", "postgres"],
    ["Redis", "redis"],
  ] as const)("on %s on a port nothing listens on", async (_, backends) => {
    const port = await closedPort();
    const result = await runCli([...create, "--tier", "free", "--app", testApp], {
      ...env,
      ...applicationEnvironment({
        ...options,
        backends,
        databaseUrl: `postgresql://postgres@127.0.0.1:${port}/test`,
        redisUrl: `redis://127.0.0.1:${port}`,
      }),
    });
    expect(result.code, result.stderr).toBe(3);
    expect(result.ms).toBeLessThan(15_000);
  });
});
