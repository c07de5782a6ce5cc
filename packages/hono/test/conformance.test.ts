/** The HTTP conformance suite against @keyward/hono, served over real HTTP by @hono/node-server. */
import { getConnInfo } from "@hono/node-server/conninfo";
import { demoPolicies, describeHttpConformance, forwardTo } from "@keyward/testing";
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
  // Every answer must match the document `keyward.openapi()` generates.
  openapi: keyward.openapi(),
  ...policies.suiteOptions(
    forwardTo(() => policyServer.origin),
    () => policyKeyward.permissions.scanInactive(),
  ),
});
