/**
 * The demo contract (`@keyward/testing/demo-contract`), checked over HTTP against a running example: started through the
 * root `scripts/start.mjs` on a free port, it must print the URL, the development-secret warning
 * and a walkthrough that works in bash, pass `@keyward/testing`'s HTTP conformance suite, honour
 * `KEYWARD_JWT_SECRET` and `KEYWARD_TIER_LIMITS`, pass the suite's `maxLifetime` checks with
 * `KEYWARD_MAX_KEY_LIFETIME`, and serve the key-management page at `/` in
 * development mode only (`NODE_ENV=production`: every response as in v0.1).
 */
import { execSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { createKeyward, memoryStore } from "@keyward/core";
import {
  DEMO_CONTRACT_CHECKS,
  describeHttpConformance,
  describePolicyConformance,
  forwardTo,
} from "@keyward/testing";
import { DEMO_SCOPE_DESCRIPTIONS, DEMO_SCOPES } from "@keyward/testing/demo-contract";
import { jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  COMPLETIONS_SCOPE_DESCRIPTIONS,
  COMPLETIONS_SCOPES,
} from "../src/completions/completions-contract.js";
import { developmentJwtSecret, loadDemoConfig } from "../src/config.js";
import { demoKeywardOptions } from "../src/create-demo.js";
import { mintToken } from "../src/token.js";
import {
  pastingShells,
  type RunningExample,
  repositoryRoot,
  runPasted,
  type StartTarget,
  startExample,
  startExpectingFailure,
} from "./run-example.js";

/** The document every example serves: it depends on the demo's shape, not on its store. */
const demoDocument = createKeyward({
  store: memoryStore(),
  ...demoKeywardOptions(loadDemoConfig({})),
}).openapi();

export interface DemoContractOptions {
  /** Which example folder holds the `token` script; checked only when given. */
  example?: "fetch" | "express" | "fastify" | "hono";
  /** Called with how long the server took to print its banner. */
  onStarted?: (startupMs: number) => void;
}

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

type Tier = "free" | "pro" | "enterprise";

export function describeDemoContract(
  name: string,
  target: StartTarget,
  options: DemoContractOptions = {},
): void {
  describe(name, () => {
    describe("with the defaults", () => {
      let server: RunningExample;
      beforeAll(async () => {
        server = await startExample(target);
        options.onStarted?.(server.startupMs);
      });
      afterAll(() => server?.stop());
      const client = () => clientFor(server.origin, developmentJwtSecret);

      it("prints the URL, a loud development-secret warning and the walkthrough", () => {
        expect(server.url).toMatch(/^http:\/\/localhost:\d+$/);
        expect(server.stderr()).toContain("WARNING: KEYWARD_JWT_SECRET is not set");
        expect(server.stdout()).toContain("free 60/min, pro 600/min, enterprise 6000/min");
        expect(server.stdout()).toContain("in memory");
        expect(server.walkthrough()).toContain(`BASE=${server.url}`);
      });

      it("lists the four demo scopes and completions:write (v0.4) with their descriptions", async () => {
        const user = await client().user("pro");
        const reply = await client().send("GET", "/api/v1/api-keys/scopes", user.token);
        expect(reply.status).toBe(200);
        const scopes = { ...DEMO_SCOPE_DESCRIPTIONS, ...COMPLETIONS_SCOPE_DESCRIPTIONS };
        expect(reply.body.data).toEqual(
          Object.entries(scopes).map(([scope, description]) => ({
            name: scope,
            description,
          })),
        );
      });

      it("create → use → rotate (old secret 401) → revoke (401)", async () => {
        const api = client();
        const user = await api.user("pro");
        const created = await api.createKey(user.token, ["profile:read", "profile:write"], "pro");
        expect(created.status).toBe(201);
        const { id, key } = created.body as { id: string; key: string };

        const read = await api.send("GET", "/api/v1/profiles/ada", key);
        expect(read.status).toBe(200);
        expect(read.body).toEqual({ slug: "ada", viewer: user.id });
        const update = await api.send("PUT", "/api/v1/profiles/ada", key, { name: "Ada" });
        expect(update.status).toBe(200);
        expect(update.body).toEqual({ slug: "ada", updatedBy: user.id });

        const rotated = await api.send("POST", `/api/v1/api-keys/${id}/rotate`, user.token);
        expect(rotated.status).toBe(200);
        expect(rotated.body.id).toBe(id);
        const newKey = rotated.body.key as string;
        expect(newKey).not.toBe(key);
        expect((await api.send("GET", "/api/v1/profiles/ada", key)).status).toBe(401);
        expect((await api.send("GET", "/api/v1/profiles/ada", newKey)).status).toBe(200);

        const usage = await api.send("GET", `/api/v1/api-keys/${id}/usage`, user.token);
        expect(usage.status).toBe(200);
        expect(usage.body.totalRequests).toBe(3);
        expect(usage.body.endpoints).toEqual(
          expect.arrayContaining([
            { method: "GET", route: "/api/v1/profiles/:slug", count: 2 },
            { method: "PUT", route: "/api/v1/profiles/:slug", count: 1 },
          ]),
        );

        const revoked = await api.send("DELETE", `/api/v1/api-keys/${id}`, user.token);
        expect(revoked.status).toBe(200);
        expect(revoked.body.status).toBe("revoked");
        expect((await api.send("GET", "/api/v1/profiles/ada", newKey)).status).toBe(401);
      });

      it("403 when a key lacks the route's scope; a session JWT holds every scope", async () => {
        const api = client();
        const user = await api.user("free");
        const { key } = (await api.createKey(user.token, ["profile:read"], "free")).body as {
          key: string;
        };
        const refused = await api.send("PUT", "/api/v1/profiles/ada", key, { name: "Ada" });
        expect(refused.status).toBe(403);
        expect(typeof refused.body.detail).toBe("string");
        const asUser = await api.send("PUT", "/api/v1/profiles/ada", user.token, {});
        expect(asUser.status).toBe(200);
        expect(asUser.body).toEqual({ slug: "ada", updatedBy: user.id });
      });

      it("sets the rate-limit headers of the key's tier", async () => {
        const api = client();
        const user = await api.user("enterprise");
        const { key } = (await api.createKey(user.token, ["profile:read"], "pro")).body as {
          key: string;
        };
        const first = await api.send("GET", "/api/v1/profiles/ada", key);
        const second = await api.send("GET", "/api/v1/profiles/ada", key);
        expect(first.headers.get("x-ratelimit-limit")).toBe("600");
        expect(Number(first.headers.get("x-ratelimit-remaining"))).toBe(599);
        expect(Number(second.headers.get("x-ratelimit-remaining"))).toBe(598);
        const reset = Number(first.headers.get("x-ratelimit-reset"));
        expect(reset).toBeGreaterThan(Date.now() / 1000);
        // The sliding window restores the whole limit by the end of the next window at the latest.
        expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 121);
      });

      it("answers unknown paths with 404 and other methods on a profile with 405", async () => {
        const api = client();
        const user = await api.user("free");
        expect((await api.send("GET", "/nowhere", user.token)).status).toBe(404);
        const wrongMethod = await api.send("DELETE", "/api/v1/profiles/ada", user.token);
        expect(wrongMethod.status).toBe(405);
      });

      it("serves the key-management page at /, with the act-as form (development mode)", async () => {
        expect(server.stdout()).toContain(`Page      ${server.url}/`);
        const page = await fetch(new URL("/", server.origin));
        expect(page.status).toBe(200);
        expect(page.headers.get("content-type")).toMatch(/^text\/html/);
        const html = await page.text();
        expect(html).toContain("<keyward-keys");
        expect(html).toContain('id="act-as"');

        const minted = await postJson(server.origin, "/demo/session", { sub: "ada", tier: "pro" });
        expect(minted.status).toBe(200);
        const { token } = (await minted.json()) as { token: string };
        const { payload } = await jwtVerify(token, new TextEncoder().encode(developmentJwtSecret));
        expect({ sub: payload.sub, tier: payload.tier }).toEqual({ sub: "ada", tier: "pro" });
        const listed = await clientFor(server.origin, developmentJwtSecret).send(
          "GET",
          "/api/v1/api-keys",
          token,
        );
        expect(listed.status).toBe(200);

        const refused = await postJson(server.origin, "/demo/session", { sub: "", tier: "gold" });
        expect(refused.status).toBe(422);
        const { detail } = (await refused.json()) as { detail: { loc: string[] }[] };
        expect(detail.map((issue) => issue.loc)).toEqual([
          ["body", "sub"],
          ["body", "tier"],
        ]);

        // Deno runs without --allow-run, so its page serves the built bundle (docs/ui.md).
        if (options.example) {
          const script = await fetch(new URL("/demo/keyward-ui.js", server.origin));
          expect(script.status).toBe(200);
          expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
          expect(await script.text()).toContain("keyward-keys");
        }
      }, 30_000);

      it.each(pastingShells)(
        "runs the printed walkthrough pasted into %s",
        async (shell) => {
          const { code, output } = await runPasted(shell, server.walkthrough());
          expect(code, output).toBe(0);
          expect(output, "every line is a command the shell accepts").not.toMatch(
            /command not found|parse error|unknown file attribute|syntax error/i,
          );
          expect(output).toContain("the server accepts the token");
          expect(output).toContain('"name":"profile:read"');
          expect(output).toMatch(/HTTP\/1\.1 200/);
          expect(output).toMatch(/^x-ratelimit-limit: 600\r?$/im);
          expect(output).toContain('{"slug":"alice","viewer":"alice"}');
          expect(output).toContain("PUT with a read-only key: 403 (expected 403)");
          expect(output).toContain("old secret: 401 (expected 401)");
          expect(output).toContain("new secret: 200 (expected 200)");
          expect(output).toContain('"route":"/api/v1/profiles/:slug"');
          expect(output).toContain('"status":"revoked"');
          expect(output).toContain("revoked key: 401 (expected 401)");
          expect(output).toMatch(
            /"type":"key\.revoked".*"type":"key\.rotated".*"type":"key\.created"/,
          );
          expect(output).toContain('"actor":{"type":"user","id":"alice"}');
        },
        30_000,
      );

      describeHttpConformance(name, {
        fetch: forwardTo(() => server.origin),
        jwtSecret: developmentJwtSecret,
        skipSlow: false, // key expiry takes under 2 s of real time
        // Everything the demo contract answers (its features, `resource` and the client address).
        ...DEMO_CONTRACT_CHECKS,
        // Every answer must match the document the demo serves (Demo contract, v0.2).
        openapi: demoDocument,
        // The contract's scopes and the v0.4 demo's `completions:write`.
        scopes: {
          read: "profile:read",
          write: "profile:write",
          all: [...DEMO_SCOPES, ...COMPLETIONS_SCOPES],
        },
      });
    });

    describe("with KEYWARD_JWT_SECRET and KEYWARD_TIER_LIMITS", () => {
      const secret = "a-test-secret-that-is-long-enough-for-hs256-0123456789";
      let server: RunningExample;
      beforeAll(async () => {
        server = await startExample(target, {
          KEYWARD_JWT_SECRET: secret,
          KEYWARD_TIER_LIMITS: "free=2, enterprise=1000000000",
        });
      });
      afterAll(() => server?.stop());

      it("does not warn, and refuses tokens signed with the development secret", async () => {
        expect(server.stderr()).not.toContain("WARNING");
        expect(server.stdout()).toContain("free 2/min, pro 600/min, enterprise 1000000000/min");
        const forged = await clientFor(server.origin, developmentJwtSecret).user("pro");
        const reply = await clientFor(server.origin, secret).send(
          "GET",
          "/api/v1/api-keys",
          forged.token,
        );
        expect(reply.status).toBe(401);
      });

      it("serves the page asking for a token, and mints no session with a secret of its own", async () => {
        const html = await (await fetch(new URL("/", server.origin))).text();
        expect(html).toContain('id="paste-token"');
        expect(html).not.toContain('id="act-as"');
        const minted = await postJson(server.origin, "/demo/session", { sub: "ada", tier: "pro" });
        const nowhere = await fetch(new URL("/nowhere", server.origin));
        expect(minted.status).toBe(404);
        expect(await minted.text()).toBe(await nowhere.text());
      });

      it("honours free=2: the third call within the minute gets 429", async () => {
        const api = clientFor(server.origin, secret);
        const user = await api.user("pro");
        const { key } = (await api.createKey(user.token, ["profile:read"], "free")).body as {
          key: string;
        };
        const replies = [];
        for (let call = 0; call < 3; call++) {
          replies.push(await api.send("GET", "/api/v1/profiles/ada", key));
        }
        expect(replies.map((reply) => reply.status)).toEqual([200, 200, 429]);
        expect(replies[0]!.headers.get("x-ratelimit-limit")).toBe("2");
        expect(replies[2]!.headers.get("x-ratelimit-remaining")).toBe("0");
        expect(Number(replies[2]!.headers.get("retry-after"))).toBeGreaterThan(0);
      });

      it("runs the walkthrough with the secret exported in the shell", async () => {
        expect(server.walkthrough()).toContain("it must be exported in this shell too");
        const { code, output } = await runPasted("bash", server.walkthrough(), {
          KEYWARD_JWT_SECRET: secret,
        });
        expect(code, output).toBe(0);
        expect(output).toContain("the server accepts the token");
        expect(output).toContain("old secret: 401 (expected 401)");
        expect(output).toContain("revoked key: 401 (expected 401)");
      }, 30_000);

      it("says at step 1 what to do when the secret is not exported in the pasting shell", async () => {
        const { output } = await runPasted("bash", server.walkthrough(), {});
        expect(output).toContain(
          "The server refused the token (HTTP 401). Export KEYWARD_JWT_SECRET, set to the server's value, in this shell, then paste the walkthrough again.",
        );
      }, 30_000);
    });

    describe("with KEYWARD_MAX_KEY_LIFETIME=30d (demo contract v0.3)", () => {
      let server: RunningExample;
      beforeAll(async () => {
        server = await startExample(target, { KEYWARD_MAX_KEY_LIFETIME: "30d" });
      });
      afterAll(() => server?.stop());

      // The suite's maxLifetime checks against this server; the rest of it ran on the defaults.
      describePolicyConformance(`${name} with KEYWARD_MAX_KEY_LIFETIME=30d`, {
        jwtSecret: developmentJwtSecret,
        organizations: true,
        keyUpdates: true,
        gracefulRotation: true,
        events: true,
        openapi: demoDocument,
        maxLifetime: { ms: 30 * 86_400_000, fetch: forwardTo(() => server.origin) },
      });
    });

    describe("with NODE_ENV=production", () => {
      let server: RunningExample;
      beforeAll(async () => {
        server = await startExample(target, { NODE_ENV: "production" });
      });
      afterAll(() => server?.stop());

      it("serves no page: /, its script and the session form answer as v0.1 did (404)", async () => {
        expect(server.stdout()).not.toContain("Page ");
        const nowhere = await fetch(new URL("/nowhere", server.origin));
        const expected = { status: nowhere.status, body: await nowhere.text() };
        expect(expected.status).toBe(404);
        const replies = [
          await fetch(new URL("/", server.origin)),
          await fetch(new URL("/demo/keyward-ui.js", server.origin)),
          await postJson(server.origin, "/demo/session", { sub: "ada", tier: "pro" }),
        ];
        for (const reply of replies) {
          expect({ status: reply.status, body: await reply.text() }).toEqual(expected);
        }
      });
    });

    it("stops at start, naming the problem, when KEYWARD_TIER_LIMITS is malformed", async () => {
      const { code, stderr } = await startExpectingFailure(target, {
        KEYWARD_TIER_LIMITS: "free=sixty",
      });
      expect(code).toBe(1);
      expect(stderr).toContain('KEYWARD_TIER_LIMITS: the limit of "free" must be a whole number');
    }, 45_000);

    if (options.example) {
      const example = options.example;
      it("has a token script printing a JWT for --sub and --tier", () => {
        const directory = path.join(repositoryRoot, "examples", example);
        const manifest = JSON.parse(readFileSync(path.join(directory, "package.json"), "utf8"));
        const token = execSync(`${manifest.scripts.token} --sub alice --tier pro`, {
          cwd: directory,
          encoding: "utf8",
          env: {
            ...process.env,
            PATH: `${path.join(directory, "node_modules/.bin")}${path.delimiter}${process.env.PATH}`,
            KEYWARD_JWT_SECRET: "",
          },
        }).trim();
        return expect(
          jwtVerify(token, new TextEncoder().encode(developmentJwtSecret)).then(({ payload }) => ({
            sub: payload.sub,
            tier: payload.tier,
          })),
        ).resolves.toEqual({ sub: "alice", tier: "pro" });
      }, 30_000);

      it("has a token script adding organization memberships with --org", async () => {
        const directory = path.join(repositoryRoot, "examples", example);
        const manifest = JSON.parse(readFileSync(path.join(directory, "package.json"), "utf8"));
        const env = {
          ...process.env,
          PATH: `${path.join(directory, "node_modules/.bin")}${path.delimiter}${process.env.PATH}`,
          KEYWARD_JWT_SECRET: "",
        };
        const command = `${manifest.scripts.token} --sub bob --org acme:admin:pro --org beta:member:free`;
        const token = execSync(command, { cwd: directory, encoding: "utf8", env }).trim();
        const { payload } = await jwtVerify(token, new TextEncoder().encode(developmentJwtSecret));
        expect(payload.orgs).toEqual([
          { id: "acme", role: "admin", tier: "pro" },
          { id: "beta", role: "member", tier: "free" },
        ]);
        expect(() =>
          execSync(`${manifest.scripts.token} --org acme:admin:platinum`, {
            cwd: directory,
            env,
            stdio: "pipe",
          }),
        ).toThrow(/--org tier must be one of free, pro, enterprise/);
      }, 30_000);
    }
  });
}

function postJson(origin: string, path: string, json: unknown): Promise<Response> {
  return fetch(new URL(path, origin), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(json),
  });
}

function clientFor(origin: string, secret: string) {
  async function send(method: string, path: string, token: string, json?: unknown) {
    const response = await fetch(new URL(path, origin), {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(json === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text ? JSON.parse(text) : {},
    } as Reply;
  }
  return {
    send,
    async user(tier: Tier) {
      const id = `user-${crypto.randomUUID()}`;
      return { id, token: await mintToken({ sub: id, tier, secret }) };
    },
    createKey: (token: string, scopes: string[], tier: Tier) =>
      send("POST", "/api/v1/api-keys", token, { name: "demo contract", scopes, tier }),
  };
}
