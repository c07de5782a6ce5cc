/**
 * Hono with @keyward/hono as a Cloudflare Worker, for real: `src/hono-worker.ts` bundled and run in
 * workerd, with the HTTP conformance suite over HTTP, and the client address taken from
 * `CF-Connecting-IP` by `hono/cloudflare-workers`' getConnInfo.
 */
import { describeHttpConformance, forwardTo } from "@keyward/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningWorker, runInWorkerd } from "../src/workerd.js";

const jwtSecret = "hono-worker-test-secret-of-at-least-32-bytes";
let worker: RunningWorker;
let output = "";

beforeAll(async () => {
  worker = await runInWorkerd({
    entry: "hono-worker.ts",
    bindings: { KEYWARD_JWT_SECRET: jwtSecret },
    fromSource: true,
    onOutput: (text) => {
      output += text;
    },
  });
});
afterAll(() => worker?.stop());

describeHttpConformance("@keyward/hono in workerd", {
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

it("logged no uncaught exception while serving the suite", () => {
  expect(output).not.toMatch(/uncaught exception/i);
});
