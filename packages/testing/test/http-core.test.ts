/**
 * Runs the HTTP conformance suite against core's own `handle`, with the demo contract's scopes,
 * tiers and host routes served by a tiny Fetch router, all in process.
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { afterAll } from "vitest";
import {
  DEMO_CONTRACT_CHECKS,
  demoKeywardConfig,
  demoPolicies,
  describeHttpConformance,
  PROFILE_ROUTE,
} from "../src/index.js";
import { guardedHost } from "./support/guarded-host.js";

const jwtSecret = "conformance-suite-secret-of-at-least-32-bytes";

const keyward = createKeyward({
  store: memoryStore(),
  ...demoKeywardConfig(jwtSecret),
});

/** The policies on an instance of their own: a cap and an inactivity limit, on a clock they move. */
const policies = demoPolicies();
const policyKeyward = createKeyward({
  store: memoryStore(),
  ...demoKeywardConfig(jwtSecret, { permissions: policies.keyward.permissions }),
  clock: policies.clock,
});
afterAll(async () => {
  await keyward.close();
  await policyKeyward.close();
});

/** The demo host: Keyward's endpoints under its base path, and two profile routes it guards. */
const profileRoutes = {
  template: PROFILE_ROUTE,
  scopes: { GET: "profile:read", PUT: "profile:write" },
  resourceKind: "profile",
};
const demoHost = guardedHost(keyward, profileRoutes);

// Every answer must also match the document `keyward.openapi()` generates.
describeHttpConformance("core handle", {
  fetch: demoHost,
  jwtSecret,
  // Everything the demo contract answers (its features, `resource` and the client address).
  ...DEMO_CONTRACT_CHECKS,
  openapi: keyward.openapi(),
  ...policies.suiteOptions(guardedHost(policyKeyward, profileRoutes), () =>
    policyKeyward.permissions.scanInactive(),
  ),
});
