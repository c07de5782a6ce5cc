/**
 * The same demo contract as `worker.ts`, written with Hono and `@keyward/hono`: the shape
 * docs/getting-started-hono.md gives for Workers (`export default app`, with the app built from
 * the first request's bindings), and the client address from `hono/cloudflare-workers`.
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { loadDemoConfig } from "@keyward/example-demo/config";
import { type KeywardEnv, keyward, requireScopes } from "@keyward/hono";
import {
  DEMO_ENVIRONMENTS,
  DEMO_SCOPE_DESCRIPTIONS,
  demoMemberships,
  demoTiers,
  PROFILE_ROUTE,
  PROFILE_ROUTES,
  readProfile,
  updateProfile,
} from "@keyward/testing/demo-contract";
import { Hono } from "hono";
import { getConnInfo } from "hono/cloudflare-workers";
import type { WorkerEnvironment } from "./worker.js";

function createHonoApp(env: WorkerEnvironment): Hono<KeywardEnv> {
  const config = loadDemoConfig({ ...env });
  const instance = createKeyward({
    store: memoryStore(), // per isolate: docs/getting-started-workers.md, Storage
    scopes: DEMO_SCOPE_DESCRIPTIONS,
    tiers: demoTiers(config.tierLimits),
    jwt: { secret: config.jwtSecret },
    // DESIGN's demo contract v0.2: organizations from the `orgs` claim, PATCH on keys,
    // environments live and test.
    organizations: { memberships: demoMemberships },
    keyUpdates: true,
    environments: { ...DEMO_ENVIRONMENTS },
    // Rotation with `gracePeriodSeconds`: the old secret keeps working up to 7 days.
    gracefulRotation: true,
    // GET /api/v1/api-keys/{key_id}/events, the audit log (pruned on a timer set on first use).
    events: {},
  });
  const app = new Hono<KeywardEnv>();
  app.use(keyward(instance, { getConnInfo }));
  app.get(PROFILE_ROUTE, requireScopes(...PROFILE_ROUTES.read.scopes), (c) =>
    c.json(readProfile(c.req.param("slug"), c.get("keyward").principal)),
  );
  app.put(PROFILE_ROUTE, requireScopes(...PROFILE_ROUTES.update.scopes), (c) =>
    c.json(updateProfile(c.req.param("slug"), c.get("keyward").principal)),
  );
  app.notFound((c) => c.json({ detail: "Not Found", code: "route_not_found" }, 404));
  return app;
}

let app: Hono<KeywardEnv> | undefined;

export default {
  fetch(request: Request, env: WorkerEnvironment, context: unknown): Response | Promise<Response> {
    app ??= createHonoApp(env);
    // biome-ignore lint/suspicious/noExplicitAny: Hono's ExecutionContext type is Workers' own
    return app.fetch(request, env, context as any);
  },
};
