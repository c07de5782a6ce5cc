/**
 * The CLI and the test application on one arrangement of stores, for the tests of one `describe`:
 * the schema migrated by the CLI and the application opened in this process before them, both
 * dropped after. The commands run as child processes (`runCli`) loading the same application.
 */
import { afterAll, beforeAll, expect } from "vitest";
import {
  type Application,
  applicationEnvironment,
  type Backends,
  databaseUrl,
  dropNaming,
  type Naming,
  openApplication,
  redisUrl,
  uniqueNaming,
} from "./application.js";
import { type CliResult, runCli, testApp } from "./run-cli.js";

/** The environment each arrangement of stores gives the CLI. */
export const storeEnvironments: Record<Backends, Record<string, string>> = {
  postgres: { DATABASE_URL: databaseUrl },
  redis: { REDIS_URL: redisUrl },
  both: { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl },
};

export interface CliOnStores {
  readonly naming: Naming;
  /** `keyward ...args --app <the test application>` on these stores. */
  keyward(...args: string[]): Promise<CliResult>;
  /** The application as this process opened it (after the `beforeAll`). */
  readonly app: Application;
  /** Closes the application (flushing what it buffered) and opens it again. */
  reopen(): Promise<void>;
}

/** Registers the hooks in the current `describe`; `label` names its schema and Redis prefix. */
export function cliOnStores(backends: Backends, label: string = backends): CliOnStores {
  const env = storeEnvironments[backends];
  const naming = uniqueNaming(label);
  const options = { backends, ...naming };
  let app: Application | undefined;

  beforeAll(async () => {
    const migrated = await runCli(["migrate", "--schema", naming.schema], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    app = await openApplication(options);
  });
  afterAll(async () => {
    await app?.close();
    await dropNaming(naming);
  });

  return {
    naming,
    keyward: (...args) =>
      runCli([...args, "--app", testApp], { ...env, ...applicationEnvironment(options) }),
    get app() {
      if (app === undefined) throw new Error("the application opens in beforeAll");
      return app;
    },
    async reopen() {
      await app?.close();
      app = await openApplication(options);
    },
  };
}
