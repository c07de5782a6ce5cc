/**
 * The same demo contract as `worker.ts`, written with Hono and `@keyward/hono`: the shape
 * docs/getting-started-hono.md gives for Workers (`export default app`, with the app built from
 * the first request's bindings), and the client address from `hono/cloudflare-workers`.
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { events } from "@keyward/core/events";
import { lifecycle } from "@keyward/core/lifecycle";
import { organizations } from "@keyward/core/organizations";
import { permissions } from "@keyward/core/permissions";
import { loadDemoConfig } from "@keyward/example-demo/config";
import { type KeywardEnv, keyward, requireApiKey } from "@keyward/hono";
import {
  DEMO_ENVIRONMENTS,
  DEMO_ORGANIZATION_ROLES,
  DEMO_SCOPE_DESCRIPTIONS,
  demoMemberships,
  demoTiers,
  PROFILE_ROUTE,
  PROFILE_ROUTES,
  profileResource,
  readProfile,
  updateProfile,
} from "@keyward/testing/demo-contract";
import { type Context, Hono } from "hono";
import { getConnInfo } from "hono/cloudflare-workers";
import type { WorkerEnvironment } from "./worker.js";

/** What a profile route is about: a key limited to some profiles gets 403 for the others. */
const resource = (c: Context) => profileResource(c.req.param("slug") ?? "");

function createHonoApp(env: WorkerEnvironment): Hono<KeywardEnv> {
  // The text bindings only: this Worker keeps its keys in memory and binds no Durable Object.
  const { KEYWARD: _, ...text } = env;
  const config = loadDemoConfig(text);
  const instance = createKeyward({
    store: memoryStore(), // per isolate: docs/getting-started-workers.md, Storage
    scopes: DEMO_SCOPE_DESCRIPTIONS,
    tiers: demoTiers(config.tierLimits),
    jwt: { secret: config.jwtSecret },
    // The demo contract's environments, live and test.
    keys: { environments: { ...DEMO_ENVIRONMENTS } },
    features: [
      // The demo contract (`@keyward/testing/demo-contract`): organizations from the `orgs` claim; PATCH on keys,
      // rotation with `gracePeriodSeconds` (the old secret keeps working up to 7
      // days); the audit log at GET /api/v1/api-keys/{key_id}/events (pruned on a timer set on
      // first use).
      organizations({ memberships: demoMemberships, roles: DEMO_ORGANIZATION_ROLES }),
      lifecycle({ gracefulRotation: true }),
      events(),
      // Resource-limited keys: the profile routes pass `resource: { profile: slug }`; the last
      // client address of each key (CF-Connecting-IP, as the Fetch adapter reads it on Workers).
      permissions({
        lastUsedAddress: true,
        ...(config.maxKeyLifetime ? { maxLifetime: config.maxKeyLifetime } : {}),
      }),
    ],
  });
  const app = new Hono<KeywardEnv>();
  app.use(keyward(instance, { getConnInfo }));
  app.get(PROFILE_ROUTE, requireApiKey({ scopes: PROFILE_ROUTES.read.scopes, resource }), (c) =>
    c.json(readProfile(c.req.param("slug"), c.get("keyward").principal)),
  );
  app.put(PROFILE_ROUTE, requireApiKey({ scopes: PROFILE_ROUTES.update.scopes, resource }), (c) =>
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
