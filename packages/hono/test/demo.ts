/**
 * The demo contract (`@keyward/testing/demo-contract`) on Hono: `keyward()` in front, and the two profile routes behind
 * `requireApiKey` with their scope and `resource` (v0.3). Runtime-neutral, so the same
 * app runs on @hono/node-server here and on Bun in bun-server.ts.
 */
import type { Keyward } from "@keyward/core";
import { type DemoKeyward, demoKeyward as sharedDemoKeyward } from "@keyward/testing";
import { profileResource, readProfile, updateProfile } from "@keyward/testing/demo-contract";
import { type Context, Hono } from "hono";
import {
  type KeywardEnv,
  type KeywardMiddlewareOptions,
  keyward,
  requireApiKey,
} from "../src/index.js";

export const jwtSecret = "hono-adapter-test-secret-of-at-least-32-bytes";

/** A Keyward on the demo contract with an in-memory store (see `demoKeyward` of `@keyward/testing`). */
export function demoKeyward(overrides: Parameters<typeof sharedDemoKeyward>[1] = {}): DemoKeyward {
  return sharedDemoKeyward(jwtSecret, overrides);
}

/** The demo contract v0.3: the profile routes are about the profile their slug names. */
const resource = (c: Context) => profileResource(c.req.param("slug") ?? "");

export function demoApp(
  instance: Keyward,
  options: KeywardMiddlewareOptions = {},
): Hono<KeywardEnv> {
  const app = new Hono<KeywardEnv>();
  app.use(keyward(instance, options));
  app.get("/api/v1/profiles/:slug", requireApiKey({ scopes: ["profile:read"], resource }), (c) =>
    c.json(readProfile(c.req.param("slug"), c.get("keyward").principal)),
  );
  app.put(
    "/api/v1/profiles/:slug",
    requireApiKey({ scopes: ["profile:write"], resource }),
    async (c) => {
      await c.req.json();
      return c.json(updateProfile(c.req.param("slug"), c.var.keyward.principal));
    },
  );
  app.notFound((c) => c.json({ detail: "Not Found", code: "route_not_found" }, 404));
  return app;
}
