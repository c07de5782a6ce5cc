/** The HTTP conformance suite against the Fetch adapter, served over real HTTP by srvx. */
import { DEMO_OPENAPI_ROUTES, describeHttpConformance, forwardTo } from "@keyward/testing";
import { type Server, serve } from "srvx";
import { afterAll, beforeAll } from "vitest";
import { demoHost, demoKeyward, jwtSecret } from "./demo.js";

const keyward = demoKeyward({ openapi: { routes: DEMO_OPENAPI_ROUTES, serve: true } });
let server: Server;

beforeAll(async () => {
  server = serve({ fetch: demoHost(keyward), port: 0, hostname: "127.0.0.1", silent: true });
  await server.ready();
});
afterAll(async () => {
  await server.close(true);
  await keyward.close();
});

describeHttpConformance("@keyward/fetch on srvx", {
  fetch: forwardTo(() => server.url!),
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
