/** The HTTP conformance suite against @keyward/fastify, served over real HTTP. */
import { DEMO_OPENAPI_ROUTES, describeHttpConformance, forwardTo } from "@keyward/testing";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll } from "vitest";
import { demoApp, demoKeyward, jwtSecret, listen } from "./demo.js";

const keyward = demoKeyward({ openapi: { routes: DEMO_OPENAPI_ROUTES, serve: true } });
let app: FastifyInstance;
let origin = "";

beforeAll(async () => {
  app = await demoApp(keyward);
  origin = await listen(app);
});
afterAll(async () => {
  await app.close();
  await keyward.close();
});

describeHttpConformance("@keyward/fastify on Fastify 5", {
  fetch: forwardTo(() => origin),
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
