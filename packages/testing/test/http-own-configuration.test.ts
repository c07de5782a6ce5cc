/**
 * Runs the HTTP conformance suite against core's own `handle` configured nothing like the demo:
 * two tiers at 5 and 50 requests a minute, two scopes, and a host route at `/v2/docs/:id`. Every
 * expectation that names a tier, a limit, a scope or the route must take them from the options,
 * or this run fails (a demo tier name is refused with 422, a demo limit is off by a factor of ten).
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { afterAll } from "vitest";
import { describeHttpConformance } from "../src/index.js";
import { guardedHost } from "./support/guarded-host.js";

const jwtSecret = "own-configuration-secret-of-at-least-32-bytes";
const route = "/v2/docs/:id";

const keyward = createKeyward({
  store: memoryStore(),
  scopes: { "docs:read": "Read documents", "docs:write": "Write documents" },
  tiers: {
    basic: { rateLimit: { limit: 5, window: "1m" } },
    plus: { rateLimit: { limit: 50, window: "1m" } },
  },
  jwt: { secret: jwtSecret },
});
afterAll(() => keyward.close());

describeHttpConformance("core handle, own tiers, scopes and route", {
  fetch: guardedHost(keyward, { template: route, scopes: { GET: "docs:read", PUT: "docs:write" } }),
  jwtSecret,
  tiers: { basic: 5, plus: 50 },
  scopes: { read: "docs:read", write: "docs:write", all: ["docs:read", "docs:write"] },
  route: { template: route, path: (id) => `/v2/docs/${encodeURIComponent(id)}` },
});
