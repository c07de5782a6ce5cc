/** The HTTP conformance suite against the Fetch adapter, served over real HTTP by srvx. */
import {
  DEMO_CONTRACT_CHECKS,
  DEMO_OPENAPI_ROUTES,
  demoPolicies,
  describeHttpConformance,
  forwardTo,
} from "@keyward/testing";
import { type Server, serve } from "srvx";
import { afterAll, beforeAll } from "vitest";
import { demoHost, demoKeyward, jwtSecret } from "./demo.js";

const openapi = { routes: DEMO_OPENAPI_ROUTES, serve: true };
const keyward = demoKeyward({ openapi });
// The policies (maxLifetime, disableAfterUnused) on an instance of their own, on a clock they move.
const policies = demoPolicies();
const policyKeyward = demoKeyward({ openapi, ...policies.keyward });
let server: Server;
let policyServer: Server;

beforeAll(async () => {
  const listen = (served: typeof keyward) =>
    serve({ fetch: demoHost(served), port: 0, hostname: "127.0.0.1", silent: true });
  server = listen(keyward);
  policyServer = listen(policyKeyward);
  await Promise.all([server.ready(), policyServer.ready()]);
});
afterAll(async () => {
  await Promise.all([server.close(true), policyServer.close(true)]);
  await Promise.all([keyward.close(), policyKeyward.close()]);
});

describeHttpConformance("@keyward/fetch on srvx", {
  fetch: forwardTo(() => server.url!),
  jwtSecret,
  // Everything the demo contract answers (its features, `resource` and the client address).
  ...DEMO_CONTRACT_CHECKS,
  // Every answer must match the generated document, which the adapter also serves.
  openapi: keyward.openapi(),
  ...policies.suiteOptions(
    forwardTo(() => policyServer.url!),
    () => policyKeyward.permissions.scanInactive(),
  ),
});
