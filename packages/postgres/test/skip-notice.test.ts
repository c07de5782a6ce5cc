/**
 * The tests create the database they run in: a newcomer's fresh PostgreSQL has none of it, and
 * the tests must never borrow one of the user's own. Runs one small test file in a child vitest
 * against a database that does not exist yet: the file runs (nothing is skipped) and the database
 * exists afterwards; then it is dropped.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { expect, it } from "vitest";
import { describeOnServer, serverUrl } from "./support/databases.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

describeOnServer("the tests' own database", () => {
  // A child vitest: its start-up is most of the time, and a busy host stretches it.
  it("is created when missing, and the tests run in it", { timeout: 180_000 }, async () => {
    const database = `kw_missing_${Date.now().toString(36)}`;
    const url = new URL(serverUrl);
    url.pathname = `/${database}`;
    const maintenance = new URL(serverUrl);
    maintenance.pathname = "/postgres";
    const env: NodeJS.ProcessEnv = { ...process.env, KEYWARD_TEST_DATABASE_URL: url.toString() };
    delete env.CI;
    const admin = new pg.Client({ connectionString: maintenance.toString() });
    await admin.connect();
    try {
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
      expect(output).not.toContain("SKIPPED");
      const { rows } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [
        database,
      ]);
      expect(rows).toHaveLength(1);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await admin.end();
    }
  });
});
