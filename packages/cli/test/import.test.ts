/**
 * `keyward import csv` and `keyward import unkey`, run as child processes loading the test
 * application, on PostgreSQL and on Redis: what they imported verifies through the application
 * opened in this process, a second run changes nothing, a dry run and a refused file write nothing.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { cliOnStores } from "./cli-on-stores.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const token = (prefix: string) =>
  prefix + randomBytes(24).toString("base64url").replace(/[-_]/g, "x");
const sha256 = (text: string, encoding: "hex" | "base64") =>
  createHash("sha256").update(text).digest(encoding);

describe.each(["postgres", "redis"] as const)("keyward import on %s", (backends) => {
  const cli = cliOnStores(backends, `import_${backends}`);
  const { keyward } = cli;
  const directory = mkdtempSync(path.join(tmpdir(), "keyward-import-"));
  const file = (name: string, text: string) => {
    const where = path.join(directory, name);
    writeFileSync(where, text);
    return where;
  };
  const owner = `user_${crypto.randomUUID()}`;
  const verify = async (secret: string, scopes: string[] = []) => {
    const result = await cli.app.keyward.verify(`Bearer ${secret}`, { route: "GET /x", scopes });
    return result.ok ? result.principal : result.error.code;
  };

  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it("imports a CSV of plaintext and hashed keys, each verifying with its scopes; again, nothing changes", async () => {
    const [plain, hashed] = [token("csv_"), token("csv_")];
    const csv = file(
      "keys.csv",
      [
        "key,hash,owner,name,scopes,tier,expires_at,prefix",
        `${plain},,${owner},"Plain, with a comma",profile:read profile:write,pro,,csv_`,
        `,${sha256(hashed, "hex")},organization:acme_${backends},Hashed,profile:read,free,2099-01-01T00:00:00Z,csv_`,
      ].join("\n"),
    );
    const dry = await keyward("import", "csv", csv, "--dry-run", "--json");
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, imported: 2, unchanged: 0 });
    // Nothing written. (Not asked through verify: the application's cache would remember that
    // miss for its negativeTtlMs, and refuse the key that long after the real import below.)
    expect(await cli.app.keyward.keys.list(owner)).toEqual([]);

    const imported = await keyward("import", "csv", csv);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toBe(
      "imported 2 of 2 keys; 0 already imported were left as they are.\n",
    );
    expect(await verify(plain, ["profile:write"])).toMatchObject({
      owner: { type: "user", id: owner },
      name: "Plain, with a comma",
      tier: "pro",
    });
    expect(await verify(hashed, ["profile:read"])).toMatchObject({
      owner: { type: "organization", id: `acme_${backends}` },
    });
    expect(await verify(hashed, ["profile:write"])).toBe("insufficient_scope");
    expect(await verify(token("csv_"))).toBe("invalid_api_key");

    // The records as stored (not their usage, which the verifications above are still writing).
    const stored = async () => {
      const [key] = await cli.app.keyward.keys.list(owner);
      return cli.app.storage.keys.findById(key!.id);
    };
    const before = await stored();
    const again = await keyward("import", "csv", csv, "--json");
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ imported: 0, unchanged: 2 });
    expect(await stored()).toEqual(before);
  });

  it("refuses a file with any bad record, naming each, and imports none of it", async () => {
    const good = token("csv_");
    const csv = file(
      "bad.csv",
      [
        "key,owner,scopes,tier",
        `${good},${owner},profile:read,free`,
        `${token("csv_")},${owner},admin,free`,
        `${token("csv_")},,profile:read,gold`,
        `${token("csv_")},${owner}`,
      ].join("\n"),
    );
    const result = await keyward("import", "csv", csv);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("nothing was imported: 3 of 4 records refused");
    // A scope that is not configured is listed once for the whole file, with how to map it.
    expect(result.stderr).toContain(
      "scopes that are not configured: admin (1 record); map each to a configured scope or drop it with --scope-map 'admin='",
    );
    expect(result.stderr).toContain("line 4: tier:");
    expect(result.stderr).toContain("line 5: 2 fields; the header has 4");
    expect(await verify(good)).toBe("invalid_api_key");
  });

  it("imports the body of Unkey's key migration (sha256_base64), with credits and expiry", async () => {
    const [first, second] = [token("uk_"), token("uk_")];
    const body = {
      keys: [
        {
          hash: { value: sha256(first, "base64"), variant: "sha256_base64" },
          prefix: "uk",
          externalId: owner,
          name: "from unkey",
          permissions: ["profile:read"],
          meta: { plan: "legacy" },
          credits: { remaining: 1, refill: { interval: "daily", amount: 10 } },
        },
        { hash: sha256(second, "base64"), prefix: "uk", externalId: owner, enabled: false },
      ],
    };
    const json = file("unkey.json", JSON.stringify(body));
    const missingTier = await keyward("import", "unkey", json);
    expect(missingTier.code).toBe(1);
    expect(missingTier.stderr).toContain("--tier");
    const result = await keyward("import", "unkey", json, "--tier", "free");
    expect(result.code, result.stderr).toBe(0);
    expect(await verify(first, ["profile:read"])).toMatchObject({
      name: "from unkey",
      metadata: { plan: "legacy" },
    });
    // One credit: the second request is refused by the credits layer.
    expect(await verify(first)).toBe("credits_exhausted");
    expect(await verify(second)).toBe("invalid_api_key");
    const listed = await cli.app.keyward.keys.list(owner);
    expect(listed.find((key) => key.name === "from unkey")?.hint).toBe("uk_…");
  });

  it("refuses a missing file, an unknown source and better-auth without --from", async () => {
    expect((await keyward("import", "csv", path.join(directory, "none.csv"))).code).toBe(1);
    const unknown = await keyward("import", "stripe", "x.json");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("unknown import source");
    const noUrl = await keyward("import", "better-auth", "--tier", "free");
    expect(noUrl.code).toBe(1);
    expect(noUrl.stderr).toContain("--from <postgres-url>");
  });
});
