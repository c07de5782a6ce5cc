/**
 * When the tests' database is missing, the skip notice says how to create it: the server may be
 * up and still lack the `test` database, which a newcomer's fresh PostgreSQL does. Runs one small
 * test file in a child vitest against a database that does not exist.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

it("names the missing database and the command that creates it", async () => {
  const database = `kw_missing_${Date.now().toString(36)}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KEYWARD_TEST_DATABASE_URL: `postgresql://postgres@127.0.0.1:5432/${database}`,
  };
  delete env.CI;
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    [
      path.join(root, "node_modules/vitest/vitest.mjs"),
      "run",
      "packages/postgres/test/migrate.test.ts",
    ],
    { cwd: root, env },
  );
  const output = stdout + stderr;
  expect(output).toContain("SKIPPED");
  expect(output).toContain(`psql -h 127.0.0.1 -U postgres -c "CREATE DATABASE ${database}"`);
}, 60_000);
