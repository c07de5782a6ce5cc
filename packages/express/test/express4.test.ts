/**
 * @keyward/express on Express 4: the HTTP conformance suite and the adapter's own checks. The
 * adapter's `import express from "express"` is pointed at Express 4 too, so its router is the
 * Express 4 one, as in an Express 4 app.
 */
import {
  DEMO_CONTRACT_CHECKS,
  DEMO_OPENAPI_ROUTES,
  describeHttpConformance,
  forwardTo,
} from "@keyward/testing";
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
  // Everything the demo contract answers (its features, `resource` and the client address).
  ...DEMO_CONTRACT_CHECKS,
  // Every answer must match the generated document, which the adapter also serves.
  openapi: keyward.openapi(),
});
describeExpressAdapter("Express 4", express4);
