/**
 * Every command of `keyward`, run as a child process loading the test application (`--app`)
 * against real PostgreSQL and Redis, in each arrangement an application may have: keys and usage
 * on PostgreSQL, everything on Redis, and keys on PostgreSQL with usage on Redis. What each command
 * did is read back through the stores and checked with the same application opened in this
 * process, as a running instance of it would see it.
 */
import { describe, expect, it, vi } from "vitest";
import { cliOnStores, storeEnvironments } from "./cli-on-stores.js";
import { runCli } from "./run-cli.js";

// Each command is a Node process loading drivers: seconds apiece on a loaded two-core machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

describe.each(["postgres", "redis", "both"] as const)("keyward on %s", (backends) => {
  const env = storeEnvironments[backends];
  const cli = cliOnStores(backends);
  const { keyward, naming } = cli;
  const owner = `user_${crypto.randomUUID()}`;

  const create = async (name: string, ...extra: string[]) => {
    const result = await keyward(
      "keys",
      "create",
      "--owner",
      owner,
      "--name",
      name,
      "--scopes",
      "profile:read",
      "--tier",
      "free",
      "--json",
      ...extra,
    );
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as { id: string; key: string; hint: string; status: string };
  };
  const verifies = async (secret: string, clientIp?: string) =>
    (
      await cli.app.keyward.verify(`Bearer ${secret}`, {
        scopes: ["profile:read"],
        route: "GET /p/:id",
        clientIp,
      })
    ).ok;

  it("migrate: PostgreSQL's schema is current after the first run; Redis needs none", async () => {
    const again = await runCli(["migrate", "--schema", naming.schema], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      backends === "redis" ? /Redis needs no migrations/ : /schema is current \(version \d+\)/,
    );
  });

  it("keys create: prints the record and the secret once; the application accepts the key", async () => {
    const result = await keyward(
      "keys",
      "create",
      "--owner",
      owner,
      "--name",
      "deploy bot",
      "--scopes",
      "profile:read,profile:write",
      "--tier",
      "pro",
      "--expires-at",
      "2099-01-01T00:00:00Z",
    );
    expect(result.code, result.stderr).toBe(0);
    const secret = /^secret: (sk_live_\w+)$/m.exec(result.stdout)?.[1];
    expect(secret).toMatch(/^sk_live_[0-9A-Za-z]{36}$/);
    expect(result.stdout.split(secret!)).toHaveLength(2);
    expect(result.stdout).toMatch(/^tier: +pro$/m);
    expect(result.stdout).toContain("shown this once");
    expect(await verifies(secret!)).toBe(true);
    const [stored] = (await cli.app.storage.keys.listByOwner({ type: "user", id: owner })).filter(
      (key) => key.name === "deploy bot",
    );
    expect(stored).toMatchObject({ tier: "pro", scopes: ["profile:read", "profile:write"] });
    expect(result.stdout).not.toContain(stored!.secretHash);
  });

  it("keys create --json: the record with its secret, for scripts", async () => {
    const created = await create("json key");
    expect(created).toMatchObject({ status: "active", key: expect.stringMatching(/^sk_live_/) });
    expect(Object.keys(created)).not.toContain("secretHash");
    expect(await verifies(created.key)).toBe(true);
    // A free key made without --account-tier leaves the owner's recorded tier (pro, from the key
    // above) as it was: creating a key never downgrades the owner's other keys by itself.
    const stored = await cli.app.storage.keys.listByOwner({ type: "user", id: owner });
    expect(new Set(stored.map((key) => key.ownerTier))).toEqual(new Set(["pro"]));
    expect(await cli.app.keyward.keys.accountTier(owner)).toBe("pro");
  });

  it("keys list: an aligned table and JSON, newest first, with no secret and no hash", async () => {
    const created = await create("listed");
    const stored = await cli.app.storage.keys.findById(created.id);
    const table = await keyward("keys", "list", "--owner", owner);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID +NAME +STATUS +TIER +SCOPES +HINT +CREATED +EXPIRES +LAST USED$/);
    const row = lines.find((line) => line.startsWith(created.id))!;
    // Aligned: every column starts where its header does.
    for (const header of ["NAME", "STATUS", "HINT"]) {
      const column = lines[0]!.indexOf(header);
      expect(row.slice(column), header).not.toMatch(/^ /);
      expect(row[column - 1], header).toBe(" ");
    }
    expect(row).toContain(created.hint);
    const json = await keyward("keys", "list", "--owner", owner, "--json");
    const { data } = JSON.parse(json.stdout) as { data: { id: string }[] };
    expect(data[0]!.id).toBe(created.id);
    expect(data.map((key) => key.id)).toEqual(
      (await cli.app.keyward.keys.list(owner)).map((key) => key.id),
    );
    for (const output of [table.stdout, json.stdout]) {
      expect(output).not.toContain(created.key);
      expect(output).not.toContain(stored!.secretHash);
      expect(output).not.toMatch(/sk_live_[0-9A-Za-z]{36}/);
    }
  });

  it("keys list for an owner without keys says so, and exits 0", async () => {
    const result = await keyward("keys", "list", "--owner", "user_nobody");
    expect(result).toMatchObject({ code: 0, stdout: "no keys for user user_nobody\n" });
  });

  it("keys rotate: a new secret; the old one stops working at once; id and fields stay", async () => {
    const created = await create("rotated");
    const result = await keyward("keys", "rotate", created.id, "--json");
    expect(result.code, result.stderr).toBe(0);
    const rotated = JSON.parse(result.stdout) as { id: string; key: string; name: string };
    expect(rotated).toMatchObject({ id: created.id, name: "rotated" });
    expect(rotated.key).not.toBe(created.key);
    expect(await verifies(created.key)).toBe(false);
    expect(await verifies(rotated.key)).toBe(true);
    const text = await keyward("keys", "rotate", created.id);
    const secret = /^secret: (sk_live_\w+)$/m.exec(text.stdout)?.[1];
    expect(await verifies(secret!)).toBe(true);
    expect(await verifies(rotated.key)).toBe(false);
  });

  it("keys rotate --grace: the old secret keeps working until the deadline; bad values exit 1, rotating nothing", async () => {
    const created = await create("graceful");
    for (const bad of ["-5", "1h", "1.5"]) {
      const refused = await keyward("keys", "rotate", created.id, "--grace", bad);
      expect(refused.code, `--grace ${bad}`).toBe(1);
      expect(refused.stderr).toContain("--grace");
    }
    const tooLong = await keyward("keys", "rotate", created.id, "--grace", "604801");
    expect(tooLong).toMatchObject({ code: 1 });
    expect(tooLong.stderr).toContain("--grace: Input should be less than or equal to 604800");
    expect(await verifies(created.key)).toBe(true);

    const result = await keyward("keys", "rotate", created.id, "--grace", "3600");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^old secret until:\s+\d{4}-\d\d-\d\dT/m);
    const secret = /^secret: (sk_live_\w+)$/m.exec(result.stdout)?.[1];
    expect(await verifies(created.key)).toBe(true);
    expect(await verifies(secret!)).toBe(true);
    // Rotating again without --grace ends the grace at once.
    const cut = await keyward("keys", "rotate", created.id, "--json");
    expect(JSON.parse(cut.stdout)).not.toHaveProperty("previousSecretExpiresAt");
    expect(await verifies(created.key)).toBe(false);
    expect(await verifies(secret!)).toBe(false);
  }, 60_000);

  it("keys revoke: final; the key still lists as revoked; a second revoke or a rotate exits 2", async () => {
    const created = await create("revoked");
    const result = await keyward("keys", "revoke", created.id);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^status: +revoked$/m);
    expect(await verifies(created.key)).toBe(false);
    expect((await cli.app.storage.keys.findById(created.id))?.revokedAt).toEqual(
      expect.any(Number),
    );
    const again = await keyward("keys", "revoke", created.id);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^keyward: .*revoked/i);
    const rotate = await keyward("keys", "rotate", created.id);
    expect(rotate.code).toBe(2);
    expect(rotate.stdout).toBe("");
    const listed = JSON.parse((await keyward("keys", "list", "--owner", owner, "--json")).stdout);
    expect(listed.data.find((key: { id: string }) => key.id === created.id).status).toBe("revoked");
  });

  it("usage: what the application recorded, as tables and as JSON", async () => {
    const created = await create("used");
    for (let i = 0; i < 3; i++) expect(await verifies(created.key, `192.0.2.${i}`)).toBe(true);
    // Buffered usage reaches the store before the CLI reads it.
    await cli.reopen();
    const json = await keyward("usage", created.id, "--json");
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({
      keyId: created.id,
      totalRequests: 3,
      endpoints: [{ method: "GET", route: "/p/:id", count: 3 }],
      daily: [{ date: new Date().toISOString().slice(0, 10), count: 3 }],
      lastUsedAddress: "192.0.2.2",
    });
    const text = await keyward("usage", created.id);
    expect(text.stdout).toMatch(/^total requests: 3$/m);
    expect(text.stdout).toMatch(/^last used from: 192\.0\.2\.2$/m);
    expect(text.stdout).toMatch(/^METHOD +ROUTE +COUNT\nGET +\/p\/:id +3$/m);
    expect(text.stdout).toMatch(/^DATE +COUNT\n\d{4}-\d\d-\d\d +3$/m);
  });

  it("rotate, revoke and usage of a key that does not exist exit 2 and change nothing", async () => {
    const before = await cli.app.keyward.keys.list(owner);
    const runs = ["key_000000000000000000000000", "not-a-key-id"].flatMap((id) =>
      [["keys", "rotate"], ["keys", "revoke"], ["usage"]].map(async (command) => ({
        id,
        command: command.join(" "),
        result: await keyward(...command, id),
      })),
    );
    for (const { id, command, result } of await Promise.all(runs)) {
      expect(result.code, `${command} ${id}`).toBe(2);
      expect(result.stderr).toBe(`keyward: no key with id ${id}\n`);
    }
    expect(await cli.app.keyward.keys.list(owner)).toEqual(before);
  });
});
