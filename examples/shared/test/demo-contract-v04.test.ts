/**
 * The demo contract v0.4's settings this package serves: `KEYWARD_IMPORT_PREFIXES` (unset: every
 * token that is neither Keyward's nor a JWT is looked up as an imported key), `KEYWARD_KEY_RING`
 * (lists `recoverable()` with that key, named `demo`), and `KEYWARD_METRICS_TOKEN` (`GET /metrics`
 * behind a bearer token, in every example, in production too). Bad values stop the start, naming
 * the variable.
 */
import { createHash, randomBytes } from "node:crypto";
import { createKeyward, memoryStore } from "@keyward/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDemoConfig } from "../src/config.js";
import { demoKeywardOptions } from "../src/create-demo.js";
import { mintToken } from "../src/token.js";
import { type RunningExample, type StartTarget, startExample } from "./run-example.js";

const demoWith = (env: Record<string, string>) => {
  const config = loadDemoConfig(env);
  return createKeyward({ store: memoryStore(), ...demoKeywardOptions(config), logger: false });
};
const foreignToken = (prefix: string) => prefix + randomBytes(24).toString("hex");
const hashOf = (token: string) => ({
  value: createHash("sha256").update(token).digest("base64url"),
  algorithm: "sha256",
  encoding: "base64url",
});
const keyRing = Buffer.alloc(32, 7).toString("base64");

describe("KEYWARD_IMPORT_PREFIXES", () => {
  it("is unset: keys imported with any prefix, or none, verify", async () => {
    const keyward = demoWith({});
    const tokens = [foreignToken("ba_"), foreignToken("acme_"), foreignToken("")];
    const report = await keyward.imports.importKeys(
      tokens.map((token, i) => ({
        hash: hashOf(token),
        prefix: ["ba_", "acme_", ""][i],
        owner: "alice",
        tier: "free",
        accountTier: "free",
      })),
    );
    expect([report.imported, report.refused]).toEqual([3, []]);
    for (const token of tokens) {
      expect((await keyward.verify(`Bearer ${token}`, { route: "GET /x" })).ok).toBe(true);
    }
    await keyward.close();
  });

  it("narrows the lookup to its prefixes: an import of another is refused, as verify never finds it", async () => {
    const keyward = demoWith({ KEYWARD_IMPORT_PREFIXES: "ba_, acme_" });
    const other = foreignToken("zz_");
    const report = await keyward.imports.importKeys([
      { hash: hashOf(other), prefix: "zz_", owner: "alice", tier: "free" },
    ]);
    expect(report.refused[0]?.issues[0]?.msg).toMatch(
      /none of imports\(\{ prefixes \}\) \(ba_, acme_\)/,
    );
    await keyward.close();
  });

  it.each(["ba_,", "ba .", "a b", ","])("refuses %j at start, naming the variable", (value) => {
    expect(() => loadDemoConfig({ KEYWARD_IMPORT_PREFIXES: value })).toThrow(
      /KEYWARD_IMPORT_PREFIXES/,
    );
  });
});

describe("KEYWARD_KEY_RING", () => {
  it("lists recoverable() with that key: a key's owner reveals its secret; unset, no reveal route", async () => {
    const keyward = demoWith({ KEYWARD_KEY_RING: keyRing });
    const session = await mintToken({
      sub: "alice",
      tier: "free",
      secret: loadDemoConfig({}).jwtSecret,
    });
    const call = (path: string, body?: unknown) =>
      keyward.handle(
        new Request(`http://localhost/api/v1/api-keys${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${session}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
    const created = (await (
      await call("", { name: "k", scopes: ["profile:read"], tier: "free" })
    ).json()) as { id: string; key: string };
    const revealed = await call(`/${created.id}/reveal`);
    expect(revealed.status).toBe(200);
    expect(((await revealed.json()) as { key: string }).key).toBe(created.key);
    await keyward.close();
    const without = demoWith({});
    expect(
      (
        await without.handle(
          new Request(`http://localhost/api/v1/api-keys/${created.id}/reveal`, {
            method: "POST",
            headers: { authorization: `Bearer ${session}` },
          }),
        )
      ).status,
    ).toBe(404);
    await without.close();
  });

  it.each(["c2hvcnQ=", "not base64!", Buffer.alloc(33).toString("base64")])(
    "refuses %j at start, naming the variable",
    (value) => {
      expect(() => loadDemoConfig({ KEYWARD_KEY_RING: value })).toThrow(/KEYWARD_KEY_RING/);
    },
  );
});

describe("KEYWARD_METRICS_TOKEN", () => {
  const metricsToken = randomBytes(24).toString("hex");
  const examples: StartTarget[] = ["fetch", "express", "fastify", "hono"];
  const running = new Map<StartTarget, RunningExample>();

  beforeAll(async () => {
    for (const target of examples) {
      running.set(
        target,
        await startExample(target, { KEYWARD_METRICS_TOKEN: metricsToken, NODE_ENV: "production" }),
      );
    }
  }, 180_000);
  afterAll(async () => {
    await Promise.all([...running.values()].map((example) => example.stop()));
  });

  it.each(examples)(
    "puts /metrics behind the bearer token on %s, in production",
    async (target) => {
      const { origin } = running.get(target)!;
      const scrape = (authorization?: string) =>
        fetch(`${origin}/metrics`, authorization ? { headers: { authorization } } : {});
      for (const refused of [
        await scrape(),
        await scrape(`Bearer ${metricsToken.slice(0, -1)}x`),
        await scrape(`Bearer ${metricsToken}x`),
        await scrape(metricsToken),
      ]) {
        expect(refused.status).toBe(401);
        const text = await refused.text();
        expect(text).not.toContain("keyward_");
      }
      const served = await scrape(`Bearer ${metricsToken}`);
      expect(served.status).toBe(200);
      expect(await served.text()).toContain("# ");
    },
  );

  it("refuses a token too short to guess hard, naming the variable", () => {
    expect(() => loadDemoConfig({ KEYWARD_METRICS_TOKEN: "short" })).toThrow(
      /KEYWARD_METRICS_TOKEN/,
    );
  });
});
