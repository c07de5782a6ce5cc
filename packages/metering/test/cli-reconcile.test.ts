/**
 * `keyward usage reconcile --period YYYY-MM` through an application's module (`--app`): per
 * customer, the ledger on PostgreSQL against Stripe's meter event summaries (the local server,
 * through the stripe SDK); exit 0 when they agree, 4 with the differences printed when they do not,
 * 1 for a malformed period.
 */
import { fileURLToPath } from "node:url";
import { run } from "@keyward/cli";
import { systemClock } from "@keyward/core";
import { cryptoRandom } from "@keyward/core/toolkit";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExporter } from "../src/export/exporter.js";
import { postgresLedger, stripeMeters } from "../src/index.js";
import { type LocalStripe, localStripe } from "./support/local-stripe.js";
import { databaseUrl, dropSchema, testPool, uniqueSchema } from "./support/postgres.js";

const app = fileURLToPath(new URL("./fixtures/reconcile-app.ts", import.meta.url));

describe("keyward usage reconcile", () => {
  const pool = testPool(2);
  const schema = uniqueSchema("cli");
  const ledger = postgresLedger({ client: pool, schema });
  let server: LocalStripe;
  const now = Date.now();
  const month = new Date(now).toISOString().slice(0, 7);
  const windowStart = now - (now % 60_000) - 120_000;

  const keyward = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await run([...argv, "--app", app], {
      env: process.env,
      cwd: process.cwd(),
      stdout: (text) => out.push(text),
      stderr: (text) => err.push(text),
    });
    return { code, stdout: out.join(""), stderr: err.join("") };
  };

  beforeAll(async () => {
    await ledger.migrate();
    server = await localStripe({ secretKey: "sk_test_local", meters: ["keyward_api_requests"] });
    // What the application module reads, as a host's reads its own configuration.
    process.env.KEYWARD_TEST_DATABASE_URL = databaseUrl;
    process.env.KEYWARD_TEST_SCHEMA = schema;
    process.env.KEYWARD_TEST_STRIPE_PORT = String(server.port);
    // Two customers' usage in the ledger, exported to Stripe.
    await ledger.add([
      { ownerId: "alice", meter: "requests", windowStart, amount: 5 },
      { ownerId: "bob", meter: "requests", windowStart, amount: 3 },
    ]);
    const stripe = new Stripe("sk_test_local", {
      host: "127.0.0.1",
      port: server.port,
      protocol: "http",
    });
    const exporter = createExporter({
      ledger,
      sinks: [
        stripeMeters({
          stripe,
          meters: { requests: "keyward_api_requests" },
          customer: (id) => id,
        }),
      ],
      windowMs: 60_000,
      settleMs: 0,
      clock: systemClock,
      random: cryptoRandom,
      holder: "test",
      leaseTtlMs: 10_000,
      maxWindowsPerRun: 100,
      backoff: { initialMs: 100, maxMs: 100 },
    });
    expect(await exporter.run()).toMatchObject([{ acknowledged: 2 }]);
    await exporter.release();
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await dropSchema(pool, schema);
    await pool.end();
  });

  it("agrees: exit 0, every customer's totals printed", async () => {
    const result = await keyward("usage", "reconcile", "--period", month);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/stripe\s+alice\s+requests\s+5\s+5/);
    expect(result.stdout).toMatch(/stripe\s+bob\s+requests\s+3\s+3/);
  });

  it("differs: exit 4, the difference printed", async () => {
    await ledger.add([{ ownerId: "bob", meter: "requests", windowStart, amount: 2 }]);
    const result = await keyward("usage", "reconcile", "--period", month, "--json");
    expect(result.code).toBe(4);
    const report = JSON.parse(result.stdout) as { differences: unknown[] };
    expect(report.differences).toEqual([
      { sink: "stripe", ownerId: "bob", meter: "requests", ledger: 5, sinkTotal: 3 },
    ]);
    expect(result.stderr).toMatch(/1 of 2 totals differ/);
  });

  it("refuses a malformed period before loading anything", async () => {
    for (const period of ["2026-13", "2026-1", "december"]) {
      const result = await keyward("usage", "reconcile", "--period", period);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/--period takes a UTC month as YYYY-MM/);
    }
    expect((await keyward("usage", "reconcile")).code).toBe(1);
  });
});
