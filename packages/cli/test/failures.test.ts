/**
 * What a script meets when something is wrong: bad usage and input (exit 1), an application that
 * cannot be loaded or whose configuration is refused (exit 1, promptly, even with connections it
 * opened left behind), a store nobody listens on or a schema never migrated (exit 3), each with
 * one clear line on stderr, nothing on stdout, and nothing changed in the store, read back
 * through it. Whatever came from the arguments or the store reaches the terminal escaped.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
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

const naming = uniqueNaming("failures");
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

/** Writes `source` as a module in a fresh directory and returns its path. */
function writeModule(name: string, source: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "keyward-cli-")), name);
  writeFileSync(file, source);
  return file;
}

const create = ["keys", "create", "--owner", owner, "--name", "n", "--scopes", "profile:read"];
const nothingCreated = async () =>
  expect(await app.storage.keys.listByOwner({ type: "user", id: owner })).toEqual([]);

describe("bad usage and input: exit 1, a message naming the problem, nothing created", () => {
  const cases: [string, string[], RegExp][] = [
    [
      "an unknown scope",
      [...create, "--tier", "free", "--scopes", "billing:write"],
      /--scopes item 1: Input should be 'profile:read' or 'profile:write'/,
    ],
    [
      "an unknown tier",
      [...create, "--tier", "platinum"],
      /--tier: Input should be 'free' or 'pro'/,
    ],
    [
      "an unknown environment",
      [...create, "--tier", "free", "--environment", "staging"],
      /--environment: Input should be 'live' or 'test'/,
    ],
    [
      "an expiry in the past",
      [...create, "--tier", "free", "--expires-at", "2001-01-01T00:00:00Z"],
      /--expires-at: /,
    ],
    [
      "a tier above --account-tier",
      [...create, "--tier", "pro", "--account-tier", "free"],
      /Tier 'pro' is above the account's tier 'free'/,
    ],
    [
      "a missing option",
      ["keys", "create", "--owner", owner, "--scopes", "profile:read", "--tier", "free"],
      /missing --name/,
    ],
    [
      "no owner",
      ["keys", "create", "--name", "n", "--scopes", "profile:read", "--tier", "free"],
      /missing --owner <user id> or --org <organization id>/,
    ],
    ["both owners", [...create, "--tier", "free", "--org", "acme"], /--owner or --org, not both/],
    [
      "an organization's key without its creator",
      [
        "keys",
        "create",
        "--org",
        "acme",
        "--name",
        "n",
        "--scopes",
        "profile:read",
        "--tier",
        "free",
      ],
      /keys create --org needs --created-by <user id>/,
    ],
    ["an unknown option", [...create, "--tier", "free", "--nmae", "x"], /Unknown option '--nmae'/],
    [
      "an unknown command",
      ["keys", "delete", "key_1"],
      /keys needs a subcommand: list, create, rotate or revoke/,
    ],
    ["a command without its id", ["keys", "rotate"], /keys rotate needs a key id/],
    ["events without its id", ["events"], /events needs a key id/],
    [
      "events with a bad --limit",
      ["events", "key_1", "--limit", "0"],
      /--limit takes a whole number from 1 to 1000/,
    ],
  ];

  it.each(cases)("%s", async (_problem, args, message) => {
    const result = await runCli([...args, "--app", testApp], env);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^keyward: /);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe("");
    await nothingCreated();
  });

  it("--help prints the commands and the exit codes, and exits 0", async () => {
    const result = await runCli(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/keyward keys create \(--owner <user id> \| --org/);
    expect(result.stdout).toMatch(/keyward events <key id>/);
    expect(result.stdout).toMatch(/Exit codes: 0 done, 1 bad usage or input, 2 key not found/);
  });
});

describe("an application that cannot be loaded or used: exit 1, promptly", () => {
  it("no application named, or none at that path", async () => {
    const [none, missing] = await Promise.all([
      runCli(["keys", "list", "--owner", owner], env),
      runCli(["keys", "list", "--owner", owner, "--app", "src/nowhere.ts"], env),
    ]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^keyward: no application: pass --app <module> or set KEYWARD_APP/);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `keyward: application module not found: ${path.join(packageRoot, "src/nowhere.ts")}\n`,
    );
  });

  it("a module whose default export is not a Keyward instance", async () => {
    const module = writeModule("not-keyward.mjs", "export default { scopes: {} };\n");
    const result = await runCli(["keys", "list", "--owner", owner, "--app", module], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/must export your Keyward instance as its default export/);
  });

  it("KEYWARD_APP names the module when --app does not; a function returning the instance counts", async () => {
    const [fromVariable, fromFunction] = await Promise.all([
      runCli(["keys", "list", "--owner", owner, "--json"], { ...env, KEYWARD_APP: testApp }),
      runCli(["keys", "list", "--owner", owner, "--json"], {
        ...env,
        KEYWARD_APP: path.join(packageRoot, "test", "fixtures", "app-function.ts"),
      }),
    ]);
    for (const result of [fromVariable, fromFunction]) {
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ data: [] });
    }
  });

  it("a configuration createKeyward refuses after the application connected to PostgreSQL and Redis exits 1, promptly", async () => {
    const result = await runCli([
      "keys",
      "list",
      "--owner",
      owner,
      "--app",
      path.join(packageRoot, "test", "fixtures", "refused-app.ts"),
    ]);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(
      /^keyward: cannot load the application .*refused-app\.ts: Keyward: tier "free": Invalid rate limit/,
    );
    expect(result.stdout).toBe("");
    // Exits on its own, with the connections the module opened still up: not killed at 30 s
    // (code -1). How promptly is failures.timing.test.ts's (timing project).
  });
});

describe("a store that cannot be reached or used: exit 3, quickly, nothing changed", () => {
  it("PostgreSQL on a port nothing listens on", async () => {
    const port = await closedPort();
    const result = await runCli([...create, "--tier", "free", "--app", testApp], {
      ...env,
      ...applicationEnvironment({
        ...options,
        backends: "postgres",
        databaseUrl: `postgresql://postgres@127.0.0.1:${port}/test`,
      }),
    });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(
      /^keyward: the application .*app\.js could not start: .*ECONNREFUSED/,
    );
    expect(result.stdout).toBe("");
    await nothingCreated();
  });

  it("Redis on a port nothing listens on", async () => {
    const port = await closedPort();
    const result = await runCli([...create, "--tier", "free", "--app", testApp], {
      ...env,
      ...applicationEnvironment({
        ...options,
        backends: "redis",
        redisUrl: `redis://127.0.0.1:${port}`,
      }),
    });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/^keyward: the application .*could not start: .*ECONNREFUSED/);
    await nothingCreated();
  });

  it("a reachable database whose schema was never migrated names the fix", async () => {
    const result = await runCli([...create, "--tier", "free", "--app", testApp], {
      ...env,
      ...applicationEnvironment({
        backends: "postgres",
        schema: `${naming.schema}_none`,
        redisPrefix: naming.redisPrefix,
        migrate: false,
      }),
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/run `keyward migrate`/);
    expect(result.stdout).toBe("");
  });

  it("migrate without DATABASE_URL or REDIS_URL says which to set", async () => {
    const result = await runCli(["migrate"]);
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr).toBe("keyward: set DATABASE_URL (or REDIS_URL, which needs none)\n");
  });
});

describe("control characters from arguments and from the store never reach the terminal raw", () => {
  // ESC (a colour, a window title ending in BEL), a carriage return, a C1 CSI, a bidi override.
  const hostile = "\u001b]0;owned\u0007\u001b[31mred\r\u009b2J\u202e";
  // Any control character but the newline that ends a line, or a bidi override or isolate.
  const raw = /[^\P{Cc}\n]|[\u202a-\u202e\u2066-\u2069]/u;

  it("in messages that quote an argument", async () => {
    const runs = await Promise.all([
      runCli([hostile, "--app", testApp], env),
      runCli(["keys", "rotate", `key_${hostile}`, "--app", testApp], env),
      runCli(["keys", "rotate", "key_1", "--grace", hostile, "--app", testApp], env),
      runCli(["events", "key_1", "--limit", hostile, "--app", testApp], env),
      runCli(["keys", "list", "--owner", owner, hostile, "--app", testApp], env),
    ]);
    for (const result of runs) {
      expect(result.code, result.stderr).toBeGreaterThan(0);
      expect(result.stderr).toMatch(/^keyward: /);
      expect(result.stderr).not.toMatch(raw);
      expect(result.stderr).toContain("\\x1b]0;owned\\x07\\x1b[31mred\\x0d\\x9b2J\\u202e");
    }
  });

  it("in records and JSON that carry stored metadata", async () => {
    const created = await app.keyward.keys.create({
      ownerId: owner,
      accountTier: "free",
      name: "metadata",
      scopes: ["profile:read"],
      tier: "free",
      metadata: { note: hostile },
    });
    const [text, json, rotated] = await Promise.all([
      runCli(["keys", "list", "--owner", owner, "--app", testApp], env),
      runCli(["keys", "list", "--owner", owner, "--json", "--app", testApp], env),
      runCli(["keys", "rotate", created.id, "--app", testApp], env),
    ]);
    for (const result of [text, json, rotated]) {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).not.toMatch(raw);
    }
    // The record shows the metadata, escaped; the JSON parses back to exactly what is stored.
    expect(rotated.stdout).toMatch(/^metadata: +\{"note":".*\\x9b2J\\u202e"\}$/m);
    expect(JSON.parse(json.stdout).data[0].metadata).toEqual({ note: hostile });
    await app.keyward.keys.revoke(owner, created.id);
  });
});
