/**
 * An import is a create, as an operator runs it: `keyward import` (child processes loading the test
 * application) on PostgreSQL and on Redis refuses what `keys.create` would refuse (a tier above the
 * owner's account tier, times create refuses, a secret another key answers to, credits past the
 * bound), and what `verify` would never find, before anything is written, even with
 * `--batch-size 1`; the dry run says so; what it imports records its owner's tier, lands in its
 * token's environment and writes `key.imported`.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createKeyFormat } from "@keyward/core/toolkit";
import { afterAll, describe, expect, it, vi } from "vitest";
import { cliOnStores } from "./cli-on-stores.js";

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const token = (prefix: string) =>
  prefix + randomBytes(24).toString("base64url").replace(/[-_]/g, "x");

describe.each(["postgres", "redis"] as const)("keyward import as a create, on %s", (backends) => {
  const cli = cliOnStores(backends, `import_create_${backends}`);
  const { keyward } = cli;
  const directory = mkdtempSync(path.join(tmpdir(), "keyward-import-create-"));
  const file = (name: string, lines: string[]) => {
    const where = path.join(directory, name);
    writeFileSync(where, lines.join("\n"));
    return where;
  };
  const newOwner = (label: string) => `${label}_${crypto.randomUUID()}`;
  const verify = async (secret: string, environment?: string) => {
    const result = await cli.app.keyward.verify(`Bearer ${secret}`, {
      route: "GET /x",
      ...(environment ? { environment } : {}),
    });
    return result.ok ? result.principal : result.error.code;
  };

  afterAll(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it("finds a row that is another key's live or graced secret in the dry run, and writes nothing with --batch-size 1", async () => {
    const owner = newOwner("collide");
    const live = await cli.app.keyward.keys.create({
      ownerId: owner,
      accountTier: "free",
      name: "live",
      scopes: ["profile:read"],
      tier: "free",
    });
    const graced = await cli.app.keyward.keys.create({
      ownerId: owner,
      accountTier: "free",
      name: "graced",
      scopes: ["profile:read"],
      tier: "free",
    });
    await cli.app.keyward.keys.rotate(owner, graced.id, { gracePeriodSeconds: 3600 });
    const [first, second] = [token("imp_"), token("imp_")];
    const csv = file("collide.csv", [
      "key,owner,scopes,tier",
      `${first},${owner},profile:read,free`,
      `${second},${owner},profile:read,free`,
      `${live.key},${owner},profile:read,free`,
      `${graced.key},${owner},profile:read,free`,
    ]);
    const dry = await keyward("import", "csv", csv, "--dry-run");
    expect(dry.code).toBe(1);
    expect(dry.stderr).toContain("nothing was imported: 2 of 4 records refused");
    expect(dry.stderr).toContain(
      `line 4: key: Value error, this secret is already key ${live.id}'s`,
    );
    expect(dry.stderr).toContain(
      `line 5: key: Value error, this secret is already key ${graced.id}'s`,
    );
    for (let run = 0; run < 2; run++) {
      const result = await keyward("import", "csv", csv, "--batch-size", "1");
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("nothing was imported");
    }
    expect((await cli.app.keyward.keys.list(owner)).map((key) => key.name).sort()).toEqual([
      "graced",
      "live",
    ]);
    expect((await verify(live.key)) as { name: string }).toMatchObject({ name: "live" });
  });

  it("refuses times create refuses, credits past the bound and a tier above the owner's", async () => {
    const owner = newOwner("rules");
    await cli.app.keyward.keys.create({
      ownerId: owner,
      accountTier: "free",
      name: "first",
      scopes: ["profile:read"],
      tier: "free",
    });
    const csv = file("rules.csv", [
      "key,owner,scopes,tier,expires_at,created_at,last_used_at",
      `${token("imp_")},${owner},profile:read,free,9999-12-31T23:30:00-01:00,,`,
      `${token("imp_")},${owner},profile:read,free,,2999-01-01T00:00:00Z,`,
      `${token("imp_")},${owner},profile:read,free,,,9999-01-01T00:00:00Z`,
      `${token("imp_")},${owner},profile:read,pro,,,`,
    ]);
    const result = await keyward("import", "csv", csv, "--dry-run");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("nothing was imported: 4 of 4 records refused");
    expect(result.stderr).toContain(
      "line 2: expiresAt: Input should be less than or equal to 9999-12-31T23:59:59Z",
    );
    expect(result.stderr).toContain("line 3: createdAt: Input should be in the past");
    expect(result.stderr).toContain("line 4: lastUsedAt: Input should be in the past");
    expect(result.stderr).toContain(
      "line 5: tier: Value error, tier 'pro' is above the owner's account tier 'free'",
    );
    const credits = file("credits.json", [
      JSON.stringify({
        keys: [
          {
            hash: { value: randomBytes(32).toString("base64"), variant: "sha256_base64" },
            externalId: owner,
            credits: { remaining: 1e20 },
          },
        ],
      }),
    ]);
    const huge = await keyward("import", "unkey", credits, "--tier", "free");
    expect(huge.code).toBe(1);
    expect(huge.stderr).toContain("must be at most 1000000000000000");
    expect((await cli.app.keyward.keys.list(owner)).map((key) => key.name)).toEqual(["first"]);
  });

  it("imports with the owner's recorded tier, a Keyward sk_test_ key into test, and writes key.imported", async () => {
    const owner = newOwner("tiered");
    await cli.app.keyward.keys.create({
      ownerId: owner,
      accountTier: "free",
      name: "first",
      scopes: ["profile:read"],
      tier: "free",
    });
    const foreign = token("imp_");
    const testKey = createKeyFormat({ prefix: "sk_test_" }).generate();
    const csv = file("tiered.csv", [
      "key,owner,scopes,tier",
      `${foreign},${owner},profile:read,free`,
      `${testKey},${owner},profile:read,free`,
    ]);
    const result = await keyward("import", "csv", csv);
    expect(result.code, result.stderr).toBe(0);
    const listed = await cli.app.keyward.keys.list(owner);
    const stored = await Promise.all(listed.map((key) => cli.app.storage.keys.findById(key.id)));
    expect(stored.map((key) => key?.ownerTier)).toEqual(["free", "free", "free"]);
    expect(await verify(testKey, "test")).toMatchObject({ owner: { id: owner } });
    expect(await verify(testKey, "live")).toBe("invalid_api_key"); // the test environment's key
    expect(stored.find((key) => key?.hint.startsWith("sk_test_"))?.environment).toBe("test");
    const logged = await cli.app.keyward.events.list({ owner, types: ["key.imported"] });
    expect(logged.data.map((event) => event.actor)).toEqual([
      { type: "operator" },
      { type: "operator" },
    ]);
  });

  it("refuses keys verify would never find, or with --skip-unverifiable imports the rest and lists them", async () => {
    const owner = newOwner("unfound");
    const good = token("imp_");
    // Keyward's prefix without Keyward's checksum: verify refuses it as a mistyped key.
    const mistaken = token("sk_live_");
    const csv = file("unfound.csv", [
      "key,owner,scopes,tier",
      `${good},${owner},profile:read,free`,
      `${mistaken},${owner},profile:read,free`,
    ]);
    const dry = await keyward("import", "csv", csv, "--dry-run");
    expect(dry.code).toBe(1);
    expect(dry.stderr).toContain("line 3: key: Value error, verify would never find this key");
    const skipped = await keyward("import", "csv", csv, "--skip-unverifiable");
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(skipped.stdout).toContain("imported 1 of 2 keys");
    expect(skipped.stdout).toContain("skipped 1 keys verify would never find:\n  line 3: key:");
    expect(await verify(good)).toMatchObject({ owner: { id: owner } });
    expect((await cli.app.keyward.keys.list(owner)).length).toBe(1);
  });

  it("lists a scope that is not configured once, and maps or drops it with --scope-map", async () => {
    const owner = newOwner("scopes");
    const [first, second] = [token("imp_"), token("imp_")];
    const csv = file("scopes.csv", [
      "key,owner,scopes,tier",
      `${first},${owner},files:read profile:read,free`,
      `${second},${owner},files:read files:delete,free`,
    ]);
    const refused = await keyward("import", "csv", csv);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "scopes that are not configured: files:read (2 records), files:delete (1 record)",
    );
    expect(refused.stderr.match(/files:read/g)?.length).toBe(2); // the list and the example
    const bad = await keyward("import", "csv", csv, "--scope-map", "files:read");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--scope-map takes");
    const mapped = await keyward(
      "import",
      "csv",
      csv,
      "--scope-map",
      "files:read=profile:read,files:delete=",
    );
    expect(mapped.code, mapped.stderr).toBe(0);
    const scopes = (await cli.app.keyward.keys.list(owner)).map((key) => key.scopes);
    expect(scopes).toEqual([["profile:read"], ["profile:read"]]);
  });

  it("refuses createdBy with NUL, a lone surrogate or past 255 characters, storing nothing", async () => {
    const owner = newOwner("creator");
    const report = await cli.app.keyward.imports.importKeys(
      ["a\u0000b", "\ud800", "x".repeat(256)].map((createdBy) => ({
        key: token("imp_"),
        owner,
        tier: "free",
        createdBy,
      })),
    );
    expect(report.refused.map(({ issues }) => issues[0]?.loc)).toEqual([
      ["createdBy"],
      ["createdBy"],
      ["createdBy"],
    ]);
    expect(await cli.app.keyward.keys.list(owner)).toEqual([]);
  });
});
