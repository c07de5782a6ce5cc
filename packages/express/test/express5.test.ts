/** @keyward/express on Express 5: the HTTP conformance suite and the adapter's own checks. */
import {
  DEMO_CONTRACT_CHECKS,
  DEMO_OPENAPI_ROUTES,
  demoPolicies,
  describeHttpConformance,
  forwardTo,
} from "@keyward/testing";
import express from "express";
import { afterAll, beforeAll } from "vitest";
import { describeExpressAdapter } from "./adapter-suite.js";
import { demoApp, demoKeyward, jwtSecret, type Listening, listen } from "./demo.js";

const openapi = { routes: DEMO_OPENAPI_ROUTES, serve: true };
const keyward = demoKeyward({ openapi });
// The policies (maxLifetime, disableAfterUnused) on an instance of their own, on a clock they move;
// checked here on Express 5 only, as the Express 4 router adds nothing to them.
const policies = demoPolicies();
const policyKeyward = demoKeyward({ openapi, ...policies.keyward });
let server: Listening;
let policyServer: Listening;
beforeAll(async () => {
  [server, policyServer] = await Promise.all([
    listen(demoApp(express, keyward)),
    listen(demoApp(express, policyKeyward)),
  ]);
});
afterAll(async () => {
  await Promise.all([server.close(), policyServer.close()]);
  await Promise.all([keyward.close(), policyKeyward.close()]);
});

describeHttpConformance("@keyward/express on Express 5", {
  fetch: forwardTo(() => server.origin),
  jwtSecret,
  // Everything the demo contract answers (its features, `resource` and the client address).
  ...DEMO_CONTRACT_CHECKS,
  // Every answer must match the generated document, which the adapter also serves.
  openapi: keyward.openapi(),
  ...policies.suiteOptions(
    forwardTo(() => policyServer.origin),
    () => policyKeyward.permissions.scanInactive(),
  ),
});
describeExpressAdapter("Express 5", express);
