/**
 * The demo contract v0.4's metering: `KEYWARD_STRIPE_SECRET_KEY` lists metering to Stripe, which
 * `KEYWARD_STRIPE_API_URL` points at another host (here the metering tests' local Stripe-compatible
 * server, driven by the real `stripe` SDK), per `KEYWARD_METER_WINDOW`; meters
 * `keyward_api_requests` (1 a served request) and `keyward_api_credits` (credits spent), the
 * customer the key owner's id. Unset, metering is not listed. Bad values stop the start, naming
 * the variable and never echoing the secret key.
 *
 * Real time (the demo's own clock): a 1 s window, exported about a second after it closes. Waits
 * are on outcomes, with caps far above a loaded machine's slowest export.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type LocalStripe,
  localStripe,
} from "../../../packages/metering/test/support/local-stripe.js";
import { loadDemoConfig } from "../src/config.js";
import { createDemo, type Demo } from "../src/create-demo.js";
import { mintToken } from "../src/token.js";
import { type RunningExample, startExample } from "./run-example.js";

const secretKey = "sk_test_demo_metering";
const meters = ["keyward_api_requests", "keyward_api_credits"];
const route = "GET /api/v1/profiles/:slug";
/** How long a served request may take to reach the local Stripe server. */
const arrivalMs = 45_000;

const meteringEnv = (server: LocalStripe) => ({
  KEYWARD_STRIPE_SECRET_KEY: secretKey,
  KEYWARD_STRIPE_API_URL: `http://127.0.0.1:${server.port}`,
  KEYWARD_METER_WINDOW: "1s",
});

describe("the demo's metering settings", () => {
  it("is off without KEYWARD_STRIPE_SECRET_KEY: no metering feature, no metering API", async () => {
    expect(loadDemoConfig({}).metering).toBeUndefined();
    expect(loadDemoConfig({ KEYWARD_METER_WINDOW: "5m" }).metering).toBeUndefined();
    const demo = await createDemo({ PORT: "0" });
    expect("metering" in demo.keyward).toBe(false);
    expect(demo.metering).toBeUndefined();
    await demo.keyward.close();
  });

  it("reads the key, the API URL as the SDK's host, port and protocol, and the window", () => {
    expect(
      loadDemoConfig({
        KEYWARD_STRIPE_SECRET_KEY: secretKey,
        KEYWARD_STRIPE_API_URL: "http://127.0.0.1:12111",
      }).metering,
    ).toEqual({
      stripeSecretKey: secretKey,
      stripeApi: { host: "127.0.0.1", port: 12111, protocol: "http" },
      windowMs: 60_000,
      window: "1m",
    });
    expect(
      loadDemoConfig({ KEYWARD_STRIPE_SECRET_KEY: secretKey, KEYWARD_METER_WINDOW: "1h" }).metering,
    ).toMatchObject({ stripeApi: undefined, windowMs: 3_600_000 });
  });

  it.each([
    [{ KEYWARD_STRIPE_SECRET_KEY: "pk_test_publishable" }, /KEYWARD_STRIPE_SECRET_KEY/],
    [{ KEYWARD_STRIPE_API_URL: "ftp://127.0.0.1" }, /KEYWARD_STRIPE_API_URL/],
    [{ KEYWARD_STRIPE_API_URL: "http://127.0.0.1:1/v1" }, /KEYWARD_STRIPE_API_URL/],
    [{ KEYWARD_METER_WINDOW: "7m" }, /KEYWARD_METER_WINDOW/],
    [{ KEYWARD_METER_WINDOW: "500ms" }, /KEYWARD_METER_WINDOW/],
    [{ KEYWARD_METER_WINDOW: "2d" }, /KEYWARD_METER_WINDOW/],
  ])("refuses %j at start, naming the variable", (env, message) => {
    expect(() => loadDemoConfig({ KEYWARD_STRIPE_SECRET_KEY: secretKey, ...env })).toThrow(message);
  });

  it("never repeats the secret key in its error", () => {
    let message = "";
    try {
      loadDemoConfig({ KEYWARD_STRIPE_SECRET_KEY: "sk_test_has spaces in it" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/KEYWARD_STRIPE_SECRET_KEY/);
    expect(message).not.toContain("has spaces");
  });
});

/** A database of its own on the local PostgreSQL, as `DATABASE_URL` names one (the demo uses `public`). */
async function privateDatabase() {
  const name = `kw_demo_metering_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: "postgresql://postgres@127.0.0.1:5432/test" });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  return {
    url: `postgresql://postgres@127.0.0.1:5432/${name}`,
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

describe.each([
  ["in memory", false],
  ["on PostgreSQL (DATABASE_URL)", true],
])("the demo's metering, in process (createDemo), the ledger %s", (_, withDatabase) => {
  let server: LocalStripe;
  let demo: Demo | undefined;
  let database: Awaited<ReturnType<typeof privateDatabase>> | undefined;

  beforeAll(async () => {
    server = await localStripe({ secretKey, meters });
    if (withDatabase) database = await privateDatabase();
  }, 60_000);
  afterEach(async () => {
    await demo?.keyward.close();
    demo = undefined;
  });
  afterAll(async () => {
    await server.close();
    await database?.drop();
  }, 60_000);

  it("bills served requests and spent credits to the owner, not refused ones", async () => {
    demo = await createDemo({
      PORT: "0",
      ...meteringEnv(server),
      ...(database ? { DATABASE_URL: database.url } : {}),
    });
    expect(demo.metering).toContain(withDatabase ? "ledger in PostgreSQL" : "ledger in memory");
    const keyward = demo.keyward as typeof demo.keyward & {
      metering: { status(): Promise<{ sinks: { backlog: number }[] }> };
    };
    expect(demo.metering).toMatch(/keyward_api_requests and keyward_api_credits to http:\/\/127/);
    const created = await keyward.keys.create({
      ownerId: "carol",
      accountTier: "free",
      name: "metered",
      scopes: ["profile:read"],
      tier: "free",
    });
    await keyward.keys.setLimits(created.id, { credits: { remaining: 100 } });
    const bearer = `Bearer ${created.key}`;
    let served = 0;
    for (let call = 0; call < 4; call++) {
      if ((await keyward.verify(bearer, { scopes: ["profile:read"], route, cost: 3 })).ok) served++;
    }
    // Refused for its scope: neither a request nor credits.
    expect((await keyward.verify(bearer, { scopes: ["profile:write"], route })).ok).toBe(false);
    expect(served).toBe(4);
    await expect
      .poll(() => Object.fromEntries(server.totals("keyward_api_credits")), {
        timeout: arrivalMs,
        interval: 200,
      })
      .toEqual({ carol: 12 });
    await expect
      .poll(() => Object.fromEntries(server.totals("keyward_api_requests")), {
        timeout: arrivalMs,
        interval: 200,
      })
      .toEqual({ carol: 4 });
    expect((await keyward.metering.status()).sinks[0]!.backlog).toBe(0);
  }, 90_000);
});

describe("the demo's metering over HTTP (the Fetch example, started as a user does)", () => {
  let server: LocalStripe;
  let example: RunningExample;

  beforeAll(async () => {
    server = await localStripe({ secretKey, meters });
    example = await startExample("fetch", meteringEnv(server));
  }, 90_000);
  afterAll(async () => {
    await example?.stop();
    await server?.close();
  });

  it("sends a meter event per served profile request to the server KEYWARD_STRIPE_API_URL names", async () => {
    expect(example.stdout()).toMatch(
      / {2}Metering {2}keyward_api_requests and keyward_api_credits/,
    );
    // The secret key is never printed.
    expect(example.stdout() + example.stderr()).not.toContain(secretKey);
    const session = await mintToken({ sub: "dave", tier: "free" });
    const createdResponse = await fetch(`${example.origin}/api/v1/api-keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${session}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "metered", scopes: ["profile:read"], tier: "free" }),
    });
    expect(createdResponse.status).toBe(201);
    const { key } = (await createdResponse.json()) as { key: string };
    const profile = (method: string) =>
      fetch(`${example.origin}/api/v1/profiles/dave`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        ...(method === "PUT" ? { body: JSON.stringify({ name: "Dave" }) } : {}),
      });
    const statuses: number[] = [];
    for (let call = 0; call < 5; call++) statuses.push((await profile("GET")).status);
    // profile:write is missing: 403, not billed.
    statuses.push((await profile("PUT")).status);
    // An unknown key: 401, not billed.
    statuses.push(
      (
        await fetch(`${example.origin}/api/v1/profiles/dave`, {
          headers: { authorization: `Bearer ${key.slice(0, -2)}xx` },
        })
      ).status,
    );
    expect(statuses).toEqual([200, 200, 200, 200, 200, 403, 401]);
    await expect
      .poll(() => Object.fromEntries(server.totals("keyward_api_requests")), {
        timeout: arrivalMs,
        interval: 200,
      })
      .toEqual({ dave: 5 });
    // Each event carries a deterministic identifier and its window's start (whole seconds).
    for (const event of server.events) {
      expect(event.identifier).toMatch(/./);
      expect(event.customer).toBe("dave");
    }
    expect(server.duplicates).toBe(0);
  }, 90_000);
});
