/**
 * better-auth for real (issue 28): keys made by better-auth 1.7 and its API-key plugin on
 * PostgreSQL (a user's keys and an organization's, with permissions, expiry, remaining credits and
 * refills, metadata) are imported with `keyward import better-auth`, run in examples/fetch against
 * the demo's own instance, while the demo serves. Then every secret better-auth issued works on the
 * demo's routes with the scopes its permissions named, a wrong secret does not, and a second import
 * changes nothing. Two databases of its own, created and dropped here.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { apiKey } from "@better-auth/api-key";
import { betterAuth } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import { organization } from "better-auth/plugins";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  type RunningExample,
  repositoryRoot,
  startExample,
} from "../../../examples/shared/test/run-example.js";
import { serverDatabaseUrl } from "../../postgres/test/support/databases.js";
import { runCli } from "./run-cli.js";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const suffix = crypto.randomUUID().replaceAll("-", "").slice(0, 12);
const betterAuthDatabase = `keyward_better_auth_${suffix}`;
const demoDatabase = `keyward_import_demo_${suffix}`;
const betterAuthUrl = serverDatabaseUrl(betterAuthDatabase);
const env = {
  DATABASE_URL: serverDatabaseUrl(demoDatabase),
  KEYWARD_TIER_LIMITS: "free=1000,pro=1000,enterprise=1000",
};
const exampleFolder = path.join(repositoryRoot, "examples", "fetch");

const admin = async (sql: string) => {
  const client = new pg.Client({ connectionString: serverDatabaseUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
};

/** The server-side calls of better-auth this test makes, as its plugins add them. */
interface BetterAuthApi {
  signUpEmail(input: { body: Record<string, unknown> }): Promise<{ user: { id: string } }>;
  createOrganization(input: { body: Record<string, unknown> }): Promise<{ id: string } | null>;
  createApiKey(input: { body: Record<string, unknown> }): Promise<{ key: string; id: string }>;
  updateApiKey(input: { body: Record<string, unknown> }): Promise<unknown>;
  verifyApiKey(input: {
    body: Record<string, unknown>;
  }): Promise<{ valid: boolean; error: unknown }>;
}

/** A secret better-auth issued, and what it was issued with. */
interface Issued {
  key: string;
  owner: string;
  read: boolean;
  write: boolean;
  /** Refused by Keyward as better-auth would refuse it (expired, disabled, no credits left). */
  refused?: string;
}

let demo: RunningExample | undefined;
let pool: pg.Pool | undefined;
const issued: Issued[] = [];

beforeAll(async () => {
  await admin(`CREATE DATABASE "${betterAuthDatabase}"`);
  await admin(`CREATE DATABASE "${demoDatabase}"`);
  pool = new pg.Pool({ connectionString: betterAuthUrl });
  // Typed loosely: @better-auth/api-key 1.7.5 and better-auth resolve two copies of
  // @better-auth/core whose plugin types do not match, though they run together as released.
  const options = {
    database: pool,
    secret: "a-better-auth-secret-for-this-test-only-0123456789",
    baseURL: "http://127.0.0.1:3000",
    emailAndPassword: { enabled: true },
    plugins: [
      organization(),
      apiKey([
        { configId: "default", references: "user", defaultPrefix: "ba_", enableMetadata: true },
        { configId: "org", references: "organization", defaultPrefix: "ba_", enableMetadata: true },
      ]) as never,
    ],
  } satisfies Parameters<typeof betterAuth>[0];
  const { runMigrations } = await getMigrations(options);
  await runMigrations();
  const auth = { api: betterAuth(options).api as unknown as BetterAuthApi };

  const signUp = async (name: string) =>
    (
      await auth.api.signUpEmail({
        body: { name, email: `${name}_${suffix}@example.com`, password: "correct horse battery" },
      })
    ).user.id;
  const alice = await signUp("alice");
  const bob = await signUp("bob");
  const acme = await auth.api.createOrganization({
    body: { name: "Acme", slug: `acme-${suffix}`, userId: alice },
  });
  if (!acme) throw new Error("better-auth made no organization");
  const day = 86_400;
  const create = (body: Record<string, unknown>) => auth.api.createApiKey({ body });

  issued.push({
    key: (await create({ userId: alice, name: "alice read", permissions: { profile: ["read"] } }))
      .key,
    owner: alice,
    read: true,
    write: false,
  });
  issued.push({
    key: (
      await create({
        userId: alice,
        name: "alice write",
        permissions: { profile: ["read", "write"] },
        expiresIn: 30 * day,
        metadata: { plan: "team" },
        remaining: 100,
        refillAmount: 100,
        refillInterval: day * 1000,
      })
    ).key,
    owner: alice,
    read: true,
    write: true,
  });
  issued.push({
    key: (
      await create({
        userId: bob,
        name: "bob metered",
        permissions: { profile: ["read"] },
        remaining: 2,
      })
    ).key,
    owner: bob,
    read: true,
    write: false,
    refused: "one credit",
  });
  issued.push({
    key: (
      await create({
        configId: "org",
        organizationId: acme.id,
        userId: alice,
        name: "acme key",
        permissions: { profile: ["read", "write"], org: ["read"] },
      })
    ).key,
    owner: acme.id,
    read: true,
    write: true,
  });
  const disabled = await create({
    userId: bob,
    name: "bob disabled",
    permissions: { profile: ["read"] },
  });
  await auth.api.updateApiKey({
    body: { keyId: disabled.id, userId: bob, enabled: false },
  });
  issued.push({ key: disabled.key, owner: bob, read: true, write: false, refused: "disabled" });

  // better-auth itself accepts what it issued (the disabled key aside): the test starts from working keys.
  for (const one of issued.filter((entry) => entry.refused !== "disabled")) {
    const verified = await auth.api.verifyApiKey({
      body: { key: one.key, configId: one.owner === acme.id ? "org" : "default" },
    });
    expect(verified.valid, JSON.stringify(verified.error)).toBe(true);
  }
  demo = await startExample("fetch", env);
});

afterAll(async () => {
  await demo?.stop();
  await pool?.end();
  await admin(`DROP DATABASE IF EXISTS "${betterAuthDatabase}" WITH (FORCE)`);
  await admin(`DROP DATABASE IF EXISTS "${demoDatabase}" WITH (FORCE)`);
});

const importBetterAuth = (...extra: string[]) =>
  runCli(
    [
      "import",
      "better-auth",
      "--from",
      betterAuthUrl,
      "--tier",
      "free",
      "--organization-configs",
      "org",
      "--json",
      ...extra,
      "--app",
      "src/keyward.ts",
    ],
    env,
    exampleFolder,
  );

/** The demo's own routes: GET needs profile:read, PUT profile:write. */
const call = (key: string, method: "GET" | "PUT") =>
  fetch(`${demo!.origin}/api/v1/profiles/someone`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(method === "PUT" ? { body: JSON.stringify({ displayName: "x" }) } : {}),
  });

describe("keyward import better-auth, into the running demo", () => {
  it("imports every key better-auth issued; each works on the demo with its own permissions as scopes", async () => {
    const dry = await importBetterAuth("--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, received: 5, imported: 5 });
    expect((await call(issued[0]!.key, "GET")).status).toBe(401);

    const imported = await importBetterAuth();
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({
      dryRun: false,
      received: 5,
      imported: 5,
      unchanged: 0,
    });

    for (const one of issued) {
      const read = await call(one.key, "GET");
      if (one.refused === "disabled") {
        expect(read.status, "a key disabled in better-auth").toBe(401);
        continue;
      }
      expect(read.status, `GET with ${one.owner}'s key`).toBe(one.read ? 200 : 403);
      if (one.refused === "one credit") {
        // Issued with `remaining: 2`, of which better-auth's own check above spent one: the
        // credit left is spent, the next request is refused.
        expect((await call(one.key, "GET")).status).toBe(429);
        continue;
      }
      expect((await call(one.key, "PUT")).status, `PUT with ${one.owner}'s key`).toBe(
        one.write ? 200 : 403,
      );
      // A second use: by now the key has been rehashed to Keyward's hash, and still works.
      expect((await call(one.key, "GET")).status).toBe(200);
    }
  });

  it("refuses a wrong secret: one character changed, and one better-auth never issued", async () => {
    const key = issued[0]!.key;
    const changed = `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;
    expect((await call(changed, "GET")).status).toBe(401);
    expect((await call(`ba_${"x".repeat(64)}`, "GET")).status).toBe(401);
  });

  it("changes nothing when the import runs again", async () => {
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    const rows = async () =>
      (await client.query("SELECT * FROM keyward_keys ORDER BY id")).rows as Record<
        string,
        unknown
      >[];
    try {
      const before = await rows();
      expect(before).toHaveLength(5);
      const again = await importBetterAuth();
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ imported: 0, unchanged: 5 });
      expect(await rows()).toEqual(before);
      // Owners and scopes as better-auth had them; no secret, only hashes.
      const organization = before.find((row) => row.owner_type === "organization");
      expect(organization?.scopes).toEqual(["profile:read", "profile:write", "org:read"]);
      // better-auth's base64url digests, read back as the hex of the same SHA-256: the demo has no
      // pepper, so that is Keyward's own hash and the first use had nothing to rehash.
      expect(before.map((row) => row.secret_hash).sort()).toEqual(
        issued.map((one) => createHash("sha256").update(one.key).digest("hex")).sort(),
      );
      // better-auth's own check of four of them recorded their last request: carried over.
      const lastUses = before.filter(
        (row) => (row.fields as { importedLastUsedAt?: number } | null)?.importedLastUsedAt,
      );
      expect(lastUses).toHaveLength(4);
      const dump = JSON.stringify(before);
      for (const one of issued) expect(dump).not.toContain(one.key);
    } finally {
      await client.end();
    }
  });
});
