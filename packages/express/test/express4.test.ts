/**
 * @keyward/express on Express 4: the HTTP conformance suite and the adapter's own checks. The
 * adapter's `import express from "express"` is pointed at Express 4 too, so its router is the
 * Express 4 one, as in an Express 4 app.
 */
import { DEMO_OPENAPI_ROUTES, describeHttpConformance, forwardTo } from "@keyward/testing";
import express4 from "express4";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { describeExpressAdapter } from "./adapter-suite.js";
import { demoApp, demoKeyward, jwtSecret, type Listening, listen } from "./demo.js";

vi.mock("express", async () => await import("express4"));

const keyward = demoKeyward({ openapi: { routes: DEMO_OPENAPI_ROUTES, serve: true } });
let server: Listening;
beforeAll(async () => {
  server = await listen(demoApp(express4, keyward));
});
afterAll(async () => {
  await server.close();
  await keyward.close();
});

it("runs on Express 4", async () => {
  const { default: mocked } = await import("express");
  expect(mocked).toBe(express4);
  const { version } = (await import("express4/package.json", { with: { type: "json" } })).default;
  expect(version).toMatch(/^4\./);
});

describeHttpConformance("@keyward/express on Express 4", {
  fetch: forwardTo(() => server.origin),
  jwtSecret,
  organizations: true,
  // The demo's `developer` role grants only the profile scopes (v0.3).
  roleGrants: true,
  keyUpdates: true,
  environments: true,
  // Requests come from 127.0.0.1 and the host route passes the socket's address.
  ipAllowlists: true,
  // The demo lists permissions({ recordAddress: true }): a key's last use shows that address.
  lastAddress: true,
  gracefulRotation: true,
  events: true,
  // The profile routes pass `resource: { profile: slug }` (demo contract v0.3).
  resources: true,
  // Every answer must match the generated document, which the adapter also serves.
  openapi: keyward.openapi(),
});
describeExpressAdapter("Express 4", express4);
