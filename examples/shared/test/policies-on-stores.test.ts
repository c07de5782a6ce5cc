/**
 * The HTTP suite's policy checks (`maxLifetime`, `disableAfterUnused`) on every store: the demo
 * contract with the policies, on a manual clock, through `keyward.handle` and a guarded profile
 * route, on PGlite, a real PostgreSQL and a real Redis (memory runs them in every adapter's own
 * conformance run). In process, so a store costs a few dozen requests and no server.
 *
 * This file lives here because this package already depends on both store packages and on their
 * drivers; the stores come from `support/stores-under-test.ts`. Needs PostgreSQL on
 * 127.0.0.1:5432 and Redis on 127.0.0.1:6379: skipped with a notice outside CI when either is down,
 * failed in CI.
 */
import {
  type DemoKeyward,
  demoKeywardConfig,
  demoPolicies,
  describePolicyConformance,
} from "@keyward/testing";
import { PROFILE_ROUTE } from "@keyward/testing/demo-contract";
import { afterAll, beforeAll, describe } from "vitest";
import { describeOnServer } from "../../../packages/postgres/test/support/databases.js";
import { redisAvailable } from "../../../packages/redis/test/support/local-redis.js";
import { guardedHost } from "../../../packages/testing/test/support/guarded-host.js";
import { type StoreUnderTest, storesUnderTest } from "./support/stores-under-test.js";

const jwtSecret = "policies-on-stores-secret-of-at-least-32-bytes";
/** One clock for every store's instance: each test creates its keys at the clock's time. */
const policies = demoPolicies();
const config = {
  ...demoKeywardConfig(jwtSecret, { permissions: policies.keyward.permissions }),
  clock: policies.clock,
};
const profileRoutes = {
  template: PROFILE_ROUTE,
  scopes: { GET: "profile:read", PUT: "profile:write" },
  resourceKind: "profile",
};

describeOnServer("the policy suites on every store", () => {
  describe.skipIf(!redisAvailable)("PGlite, PostgreSQL and Redis", () => {
    const stores: StoreUnderTest[] = [];
    beforeAll(async () => {
      stores.push(...(await storesUnderTest(config)));
    });
    afterAll(async () => {
      for (const store of stores) {
        await store.keyward.close();
        await store.close();
      }
    });

    for (const name of ["PGlite", "PostgreSQL", "Redis"]) {
      const keywardOn = () => {
        const store = stores.find((candidate) => candidate.name === name);
        if (!store) throw new Error(`no store named ${name}`);
        // Made with the demo's features, so it has their APIs (`permissions.scanInactive`).
        return store.keyward as DemoKeyward;
      };
      const fetch = (request: Request) => guardedHost(keywardOn(), profileRoutes)(request);
      describePolicyConformance(name, {
        jwtSecret,
        organizations: true,
        keyUpdates: true,
        gracefulRotation: true,
        events: true,
        ...policies.suiteOptions(fetch, () => keywardOn().permissions.scanInactive()),
      });
    }
  });
});
