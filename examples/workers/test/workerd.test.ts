/**
 * The Worker for real: bundled by esbuild as Wrangler would, served by `workerd` (Cloudflare's
 * runtime, from the `workerd` npm package), and driven over HTTP by the conformance suite. One
 * isolate serves every request, so its in-memory store holds the keys from one request to the next.
 */
import { describeHttpConformance, forwardTo } from "@keyward/testing";
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
});

describe("examples/workers in workerd", () => {
  it("bundles without Node built-ins, so the Worker needs no nodejs_compat flag", async () => {
    const bundle = await bundleWorker({ fromSource: true });
    expect(bundle).not.toMatch(/\bfrom\s*["']node:|\bimport\(\s*["']node:|require\(\s*["']node:/);
    expect(worker.bundleBytes).toBe(new TextEncoder().encode(bundle).length);
  });

  it("logged no uncaught exception while serving the suite", () => {
    expect(output).not.toMatch(/uncaught exception/i);
  });
});
