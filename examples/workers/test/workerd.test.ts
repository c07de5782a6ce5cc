/**
 * The Worker for real: bundled by esbuild as Wrangler would, served by `workerd` (Cloudflare's
 * runtime, from the `workerd` npm package), and driven over HTTP by the conformance suite. One
 * isolate serves every request, so its in-memory store holds the keys from one request to the next.
 */

import { COMPLETIONS_SCOPES } from "@keyward/example-demo/completions";
import { describeHttpConformance, forwardTo } from "@keyward/testing";
import { DEMO_SCOPES } from "@keyward/testing/demo-contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker, type RunningWorker, runInWorkerd } from "../src/workerd.js";

const jwtSecret = "workers-example-test-secret-of-at-least-32-bytes";
let worker: RunningWorker;
let output = "";

beforeAll(async () => {
  worker = await runInWorkerd({
    bindings: { KEYWARD_JWT_SECRET: jwtSecret },
    fromSource: true,
    onOutput: (text) => {
      output += text;
    },
  });
});
afterAll(async () => {
  await worker?.stop();
});

describeHttpConformance("examples/workers in workerd", {
  fetch: forwardTo(() => worker.origin),
  jwtSecret,
  organizations: true,
  // The demo's `developer` role grants only the profile scopes (v0.3).
  roleGrants: true,
  keyUpdates: true,
  environments: true,
  gracefulRotation: true,
  events: true,
  // The profile routes pass `resource: { profile: slug }` (demo contract v0.3).
  resources: true,
  // The contract's scopes and the v0.4 demo's `completions:write`.
  scopes: {
    read: "profile:read",
    write: "profile:write",
    all: [...DEMO_SCOPES, ...COMPLETIONS_SCOPES],
  },
});

describe("examples/workers in workerd", () => {
  it("bundles without Node built-ins, so the Worker needs no nodejs_compat flag", async () => {
    const bundle = await bundleWorker({ fromSource: true });
    expect(bundle).not.toMatch(/\bfrom\s*["']node:|\bimport\(\s*["']node:|require\(\s*["']node:/);
    expect(worker.bundleBytes).toBe(new TextEncoder().encode(bundle).length);
  });

  it("does not serve /mcp without KEYWARD_MCP_RESOURCE, and says why", async () => {
    for (const path of ["/mcp", "/.well-known/oauth-protected-resource"]) {
      const response = await fetch(`${worker.origin}${path}`, { method: "GET" });
      expect(response.status, path).toBe(404);
      await response.body?.cancel();
    }
    expect(output).toContain("KEYWARD_MCP_RESOURCE is not set");
  });

  it("signs exchanged tokens with one key per isolate, not one per request", async () => {
    const kids = async () =>
      (
        (await (await fetch(`${worker.origin}/api/v1/api-keys/jwks.json`)).json()) as {
          keys: { kid: string }[];
        }
      ).keys.map((key) => key.kid);
    const first = await kids();
    expect(first).toHaveLength(1);
    expect(first[0]).toMatch(/^isolate-/);
    expect(await kids()).toEqual(first);
    expect(output).toContain("KEYWARD_TOKEN_SIGNING_KEY is not set");
  });

  it("logged no uncaught exception while serving the suite", () => {
    expect(output).not.toMatch(/uncaught exception/i);
  });
});
