/**
 * The demo contract's operator path (docs/cli.md): run in an example's folder,
 * `keyward --app src/keyward.ts …` acts on the demo's own stores through the demo's own instance,
 * while the demo serves. Two processes on PostgreSQL and Redis: the example's server (started as
 * a user starts it) and the CLI. A key the CLI makes works on the server; the server's events
 * endpoint shows the CLI's changes with actor `operator`; the CLI's revocation is refused there.
 */
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { mintToken } from "../../../examples/shared/src/token.js";
import {
  type RunningExample,
  repositoryRoot,
  startExample,
} from "../../../examples/shared/test/run-example.js";
import { serverDatabaseUrl } from "../../postgres/test/support/databases.js";
import { redisUrl } from "./application.js";
import { runCli } from "./run-cli.js";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

/** A database of its own: the demo migrates the default schema of whatever DATABASE_URL names. */
const database = `keyward_cli_demo_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
const adminUrl = serverDatabaseUrl();
const env = {
  DATABASE_URL: serverDatabaseUrl(database),
  REDIS_URL: redisUrl,
};
const exampleFolder = path.join(repositoryRoot, "examples", "fetch");

const admin = async (sql: string) => {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
};

let server: RunningExample | undefined;

beforeAll(async () => {
  await admin(`CREATE DATABASE "${database}"`);
  server = await startExample("fetch", env);
});
afterAll(async () => {
  await server?.stop();
  await admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
});

/** `keyward …args --app src/keyward.ts`, run in examples/fetch as its docs say. */
const keyward = async (...args: string[]) => {
  const result = await runCli([...args, "--app", "src/keyward.ts"], env, exampleFolder);
  expect(result.code, `keyward ${args.join(" ")}: ${result.stderr}`).toBe(0);
  return result.stdout;
};

describe("examples/fetch: keyward --app src/keyward.ts, beside the running demo", () => {
  it("creates a test key the demo accepts, lists it, revokes it for the demo too, with every change in the demo's events", async () => {
    const owner = `alice_${crypto.randomUUID().slice(0, 8)}`;
    const created = JSON.parse(
      await keyward(
        "keys",
        "create",
        "--owner",
        owner,
        "--name",
        "from the terminal",
        "--scopes",
        "profile:read",
        "--tier",
        "free",
        "--environment",
        "test",
        "--json",
      ),
    ) as { id: string; key: string; environment: string };
    expect(created.key).toMatch(/^sk_test_/);
    expect(created.environment).toBe("test");

    const profile = () =>
      fetch(`${server!.origin}/api/v1/profiles/${owner}`, {
        headers: { authorization: `Bearer ${created.key}` },
      });
    expect((await profile()).status).toBe(200);

    const table = await keyward("keys", "list", "--owner", owner);
    expect(table).toMatch(new RegExp(`^${created.id} +from the terminal +active +free `, "m"));

    await keyward("keys", "revoke", created.id);
    await vi.waitFor(async () => expect((await profile()).status).toBe(401), {
      timeout: 5_000,
      interval: 50,
    });

    const session = await mintToken({ sub: owner, tier: "free" });
    const response = await fetch(`${server!.origin}/api/v1/api-keys/${created.id}/events`, {
      headers: { authorization: `Bearer ${session}` },
    });
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: { type: string; actor: unknown }[] };
    expect(data.map((event) => [event.type, event.actor])).toEqual([
      ["key.revoked", { type: "operator" }],
      ["key.created", { type: "operator" }],
    ]);
  });
});
