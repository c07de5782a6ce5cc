import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { demoTiers } from "@keyward/testing/demo-contract";
import { describe, expect, it } from "vitest";
import { banner, tokenScript, walkthrough } from "../src/banner.js";
import { developmentJwtSecret, loadDemoConfig } from "../src/config.js";
import { nodeServerTimeouts } from "../src/server-timeouts.js";
import { openDemoStore } from "../src/store.js";
import { parseTierLimits } from "../src/tier-limits.js";
import { repositoryRoot } from "./run-example.js";

describe("KEYWARD_TIER_LIMITS", () => {
  it("keeps the demo tiers when unset or empty", () => {
    const defaults = { free: 60, pro: 600, enterprise: 6000 };
    expect(parseTierLimits(undefined)).toEqual(defaults);
    expect(parseTierLimits("  ")).toEqual(defaults);
  });

  it("overrides the tiers it names, spaces allowed", () => {
    expect(parseTierLimits("free=60,pro=600,enterprise=1000000000")).toEqual({
      free: 60,
      pro: 600,
      enterprise: 1_000_000_000,
    });
    expect(parseTierLimits(" free = 2 ")).toEqual({ free: 2, pro: 600, enterprise: 6000 });
  });

  it.each([
    ["free", /"free" is not tier=limit/],
    ["free=60,", /"" is not tier=limit/],
    ["gold=5", /unknown tier "gold" \(the demo tiers are free, pro, enterprise\)/],
    ["free=0", /the limit of "free" must be a whole number .* at least 1 \(got "0"\)/],
    ["free=1.5", /got "1\.5"/],
    ["free=-1", /got "-1"/],
    ["free=1e3", /got "1e3"/],
    ["free=99999999999999999999", /whole number/],
    ["free=1,free=2", /tier "free" is given twice/],
  ])("refuses %j", (value, message) => {
    expect(() => parseTierLimits(value)).toThrow(message);
  });
});

describe("loadDemoConfig", () => {
  it("uses the development defaults on an empty environment", () => {
    const config = loadDemoConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: "127.0.0.1",
      jwtSecret: developmentJwtSecret,
      usingDevelopmentSecret: true,
      databaseUrl: undefined,
      redisUrl: undefined,
    });
    expect(new TextEncoder().encode(developmentJwtSecret).length).toBeGreaterThanOrEqual(32);
  });

  it("reads PORT, HOST, KEYWARD_JWT_SECRET and the store URLs", () => {
    const secret = "s".repeat(32);
    const config = loadDemoConfig({
      PORT: "0",
      HOST: "0.0.0.0",
      KEYWARD_JWT_SECRET: secret,
      DATABASE_URL: "postgres://localhost/keyward",
      REDIS_URL: "",
    });
    expect(config).toMatchObject({
      port: 0,
      host: "0.0.0.0",
      jwtSecret: secret,
      usingDevelopmentSecret: false,
      databaseUrl: "postgres://localhost/keyward",
      redisUrl: undefined,
    });
  });

  it.each(["http", "-1", "65536", "80.5"])("refuses PORT=%j", (port) => {
    expect(() => loadDemoConfig({ PORT: port })).toThrow(/PORT must be a whole number/);
  });

  it("refuses a KEYWARD_JWT_SECRET shorter than 32 bytes", () => {
    expect(() => loadDemoConfig({ KEYWARD_JWT_SECRET: "short" })).toThrow(/at least 32 bytes/);
  });

  it("cuts slow clients off after 10 s of headers and 30 s of request unless told otherwise", () => {
    expect(loadDemoConfig({})).toMatchObject({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
    });
    expect(
      loadDemoConfig({ HEADERS_TIMEOUT_MS: "500", REQUEST_TIMEOUT_MS: " 1000 " }),
    ).toMatchObject({ headersTimeoutMs: 500, requestTimeoutMs: 1000 });
  });

  it.each([
    ["HEADERS_TIMEOUT_MS", "0"],
    ["HEADERS_TIMEOUT_MS", "1.5"],
    ["REQUEST_TIMEOUT_MS", "30s"],
    ["REQUEST_TIMEOUT_MS", "-1"],
  ])("refuses %s=%j", (name, value) => {
    expect(() => loadDemoConfig({ [name]: value })).toThrow(
      new RegExp(`${name} must be a whole number of milliseconds, at least 1 \\(got "${value}"\\)`),
    );
  });

  it("refuses a headers timeout longer than the request timeout, as Node would", () => {
    expect(() => loadDemoConfig({ HEADERS_TIMEOUT_MS: "40000" })).toThrow(
      "HEADERS_TIMEOUT_MS (40000) must not be longer than REQUEST_TIMEOUT_MS (30000)",
    );
  });

  it("checks for expired connections every second, or four times per headers timeout if sooner", () => {
    expect(nodeServerTimeouts({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 })).toEqual({
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      connectionsCheckingInterval: 1_000,
    });
    expect(
      nodeServerTimeouts({ headersTimeoutMs: 500, requestTimeoutMs: 1_000 })
        .connectionsCheckingInterval,
    ).toBe(125);
  });

  it("turns the limits into one-minute tiers, lowest first", () => {
    expect(demoTiers(parseTierLimits("free=2"))).toEqual({
      free: { rateLimit: { limit: 2, window: "1m" } },
      pro: { rateLimit: { limit: 600, window: "1m" } },
      enterprise: { rateLimit: { limit: 6000, window: "1m" } },
    });
  });
});

describe("the store", () => {
  it("is in memory without DATABASE_URL and REDIS_URL", async () => {
    const store = await openDemoStore({ databaseUrl: undefined, redisUrl: undefined });
    expect(store.description).toMatch(/^in memory/);
    await store.storage.close?.();
  });
});

describe("the banner", () => {
  const config = loadDemoConfig({});

  it("quotes the example directory for bash, whatever it holds", () => {
    const text = walkthrough({
      url: "http://localhost:3000",
      config,
      exampleDirectory: "/tmp/it's here",
    });
    expect(text).toContain(`TOKEN=$(cd '/tmp/it'\\''s here' && node`);
    const check = spawnSync("bash", ["-n", "-c", text]);
    expect(check.status, check.stderr.toString()).toBe(0);
  });

  it("shows the URL, tiers and storage", () => {
    const text = banner({
      title: "Test",
      url: "http://localhost:4000",
      config,
      storage: "in memory",
      exampleDirectory: "/x",
    });
    expect(text).toContain("URL       http://localhost:4000");
    expect(text).toContain("free 60/min, pro 600/min, enterprise 6000/min");
    expect(text).toContain("Metrics   http://localhost:4000/metrics");
  });

  it("is what docs/examples.md shows, line for line, for the default demo", () => {
    const page = readFileSync(path.join(repositoryRoot, "docs", "examples.md"), "utf8");
    const shown = page.slice(page.indexOf("Keyward demo: Fetch API on Node (srvx)"));
    const shownLines = shown.slice(0, shown.indexOf("\n\n")).split("\n");
    const printed = banner({
      title: "Fetch API on Node (srvx)",
      url: "http://localhost:3000",
      config: loadDemoConfig({}),
      storage: "in memory (everything is lost when the server stops)",
      exampleDirectory: "/x",
    });
    const printedLines = printed.slice(printed.indexOf("Keyward demo:")).split("\n");
    expect(shownLines).toEqual(printedLines.slice(0, shownLines.length));
    expect(shownLines.at(-1)).toMatch(/^ {2}JWT/);
  });
});

describe("the examples' package.json scripts", () => {
  const scripts = (example: string) =>
    JSON.parse(readFileSync(path.join(repositoryRoot, "examples", example, "package.json"), "utf8"))
      .scripts as Record<string, string>;

  it.each(["fetch", "express", "fastify", "hono"])(
    "%s: the token script is the command the walkthrough runs",
    (example) => {
      expect(scripts(example).token).toBe(tokenScript);
      expect(scripts(example).start).toBe(
        "node --conditions=@keyward/source --import tsx src/server.ts",
      );
    },
  );

  it("no example depends on bun or deno: scripts/runtimes.mjs installs them on first use", () => {
    for (const example of ["fetch", "express", "fastify", "hono", "workers", "shared"]) {
      const manifest = JSON.parse(
        readFileSync(path.join(repositoryRoot, "examples", example, "package.json"), "utf8"),
      );
      const dependencies = { ...manifest.dependencies, ...manifest.devDependencies };
      expect(Object.keys(dependencies), example).not.toContain("bun");
      expect(Object.keys(dependencies), example).not.toContain("deno");
    }
  });

  it("fetch: start:bun and start:deno download nothing at run time", () => {
    expect(scripts("fetch")["start:bun"]).toContain("--no-install");
    expect(scripts("fetch")["start:deno"]).toMatch(/--no-remote --cached-only/);
    expect(scripts("fetch")["start:deno"]).toContain("--node-modules-dir=manual");
  });
});

describe("scripts/start.mjs", () => {
  it("refuses an unknown example, listing the known ones", () => {
    const result = spawnSync(process.execPath, ["scripts/start.mjs", "koa"], {
      cwd: repositoryRoot,
      encoding: "utf8",
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      'unknown example "koa"; choose one of: fetch, node, bun, deno, express, fastify, hono',
    );
  });
});
