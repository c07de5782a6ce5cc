/** The HTTP conformance suite against @keyward/fastify, served over real HTTP. */
import {
  DEMO_CONTRACT_CHECKS,
  DEMO_OPENAPI_ROUTES,
  demoPolicies,
  describeHttpConformance,
  forwardTo,
} from "@keyward/testing";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll } from "vitest";
import { demoApp, demoKeyward, jwtSecret, listen } from "./demo.js";

const openapi = { routes: DEMO_OPENAPI_ROUTES, serve: true };
const keyward = demoKeyward({ openapi });
// The policies (maxLifetime, disableAfterUnused) on an instance of their own, on a clock they move.
const policies = demoPolicies();
const policyKeyward = demoKeyward({ openapi, ...policies.keyward });
let apps: FastifyInstance[] = [];
let origin = "";
let policyOrigin = "";

beforeAll(async () => {
  apps = await Promise.all([demoApp(keyward), demoApp(policyKeyward)]);
  [origin, policyOrigin] = await Promise.all([listen(apps[0]!), listen(apps[1]!)]);
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await Promise.all([keyward.close(), policyKeyward.close()]);
});

describeHttpConformance("@keyward/fastify on Fastify 5", {
  fetch: forwardTo(() => origin),
  jwtSecret,
  // Everything the demo contract answers (its features, `resource` and the client address).
  ...DEMO_CONTRACT_CHECKS,
  // Every answer must match the generated document, which the adapter also serves.
  openapi: keyward.openapi(),
  ...policies.suiteOptions(
    forwardTo(() => policyOrigin),
    () => policyKeyward.permissions.scanInactive(),
  ),
});
