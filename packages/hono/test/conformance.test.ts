/** The HTTP conformance suite against @keyward/hono, served over real HTTP by @hono/node-server. */
import { getConnInfo } from "@hono/node-server/conninfo";
import {
  DEMO_CONTRACT_CHECKS,
  demoPolicies,
  describeHttpConformance,
  forwardTo,
} from "@keyward/testing";
import { afterAll, beforeAll } from "vitest";
import { demoApp, demoKeyward, jwtSecret } from "./demo.js";
import { type Listening, listen } from "./node-server.js";

const keyward = demoKeyward();
// The policies (maxLifetime, disableAfterUnused) on an instance of their own, on a clock they move.
const policies = demoPolicies();
const policyKeyward = demoKeyward(policies.keyward);
let server: Listening;
let policyServer: Listening;

beforeAll(async () => {
  [server, policyServer] = await Promise.all([
    listen(demoApp(keyward, { getConnInfo })),
    listen(demoApp(policyKeyward, { getConnInfo })),
  ]);
});
afterAll(async () => {
  await Promise.all([server.close(), policyServer.close()]);
  await Promise.all([keyward.close(), policyKeyward.close()]);
});

describeHttpConformance("@keyward/hono on @hono/node-server", {
  fetch: forwardTo(() => server.origin),
  jwtSecret,
  // Everything the demo contract answers (its features, `resource` and the client address).
  ...DEMO_CONTRACT_CHECKS,
  // Every answer must match the document `keyward.openapi()` generates.
  openapi: keyward.openapi(),
  ...policies.suiteOptions(
    forwardTo(() => policyServer.origin),
    () => policyKeyward.permissions.scanInactive(),
  ),
});
