/**
 * What a script meets when something is wrong: bad usage and input (exit 1), a store nobody
 * listens on or a schema never migrated (exit 3), each with one clear line on stderr, nothing on
 * stdout, and nothing changed in the store, read back through it.
 */
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runCli, writeConfig } from "./run-cli.js";
import {
  databaseUrl,
  dropNaming,
  openApplication,
  redisUrl,
  scopes,
  tiers,
  uniqueNaming,
} from "./stores.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const naming = uniqueNaming("failures");
const config = writeConfig({
  scopes,
  tiers,
  postgres: { schema: naming.schema },
  redis: { prefix: naming.redisPrefix },
});
const env = { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl };
const owner = `user_${crypto.randomUUID()}`;
let app: Awaited<ReturnType<typeof openApplication>>;

beforeAll(async () => {
  expect((await runCli(["migrate", "--config", config], env)).code).toBe(0);
  app = await openApplication("both", naming);
});
afterAll(async () => {
  await app?.close();
  await dropNaming(naming);
});

/** A port on 127.0.0.1 that nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const create = ["keys", "create", "--owner", owner, "--name", "n", "--scopes", "profile:read"];

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
    ["an unknown option", [...create, "--tier", "free", "--nmae", "x"], /Unknown option '--nmae'/],
    [
      "an unknown command",
      ["keys", "delete", "key_1"],
      /keys needs a subcommand: list, create, rotate or revoke/,
    ],
    ["a command without its id", ["keys", "rotate"], /keys rotate needs a key id/],
  ];

  it.each(cases)("%s", async (_problem, args, message) => {
    const result = await runCli([...args, "--config", config], env);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^keyward: /);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe("");
    expect(await app.storage.keys.listByOwner({ type: "user", id: owner })).toEqual([]);
  });

  it("no configuration, or no store to work on", async () => {
    const [noConfig, noStore] = await Promise.all([
      runCli(["keys", "list", "--owner", owner], env),
      runCli(["keys", "list", "--owner", owner, "--config", config]),
    ]);
    expect(noConfig.code).toBe(1);
    expect(noConfig.stderr).toMatch(/no configuration: pass --config <file> or set KEYWARD_CONFIG/);
    expect(noStore.code).toBe(1);
    expect(noStore.stderr).toBe("keyward: set DATABASE_URL or REDIS_URL (or both)\n");
  });

  it("--help prints the commands and the exit codes, and exits 0", async () => {
    const result = await runCli(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/keyward keys create --owner <id>/);
    expect(result.stdout).toMatch(/Exit codes: 0 done, 1 bad usage or input, 2 key not found/);
  });
});

describe("a store that cannot be reached or used: exit 3, quickly, nothing changed", () => {
  it("PostgreSQL on a port nothing listens on", async () => {
    const port = await closedPort();
    const result = await runCli([...create, "--tier", "free", "--config", config], {
      DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/test`,
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /^keyward: cannot reach PostgreSQL at DATABASE_URL: .*ECONNREFUSED/,
    );
    expect(result.stdout).toBe("");
    // Refused at once, not after the driver's retries or the 3 s connect timeout.
    expect(result.ms).toBeLessThan(15_000);
    expect(await app.storage.keys.listByOwner({ type: "user", id: owner })).toEqual([]);
  });

  it("Redis on a port nothing listens on", async () => {
    const port = await closedPort();
    const result = await runCli([...create, "--tier", "free", "--config", config], {
      REDIS_URL: `redis://127.0.0.1:${port}`,
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^keyward: cannot reach Redis at REDIS_URL: .*ECONNREFUSED/);
    expect(result.ms).toBeLessThan(15_000);
    expect(await app.storage.keys.listByOwner({ type: "user", id: owner })).toEqual([]);
  });

  it("a reachable database whose schema was never migrated names the fix", async () => {
    const unmigrated = writeConfig({
      scopes,
      tiers,
      postgres: { schema: `${naming.schema}_none` },
    });
    const result = await runCli([...create, "--tier", "free", "--config", unmigrated], {
      DATABASE_URL: databaseUrl,
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/run `keyward migrate`/);
    expect(result.stdout).toBe("");
  });
});
