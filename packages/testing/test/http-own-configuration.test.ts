/**
 * Runs the HTTP conformance suite against core's own `handle` configured nothing like the demo:
 * two tiers at 5 and 50 requests a minute, three scopes, and a host route at `/v2/docs/:id`. Every
 * expectation that names a tier, a limit, a scope or the route must take them from the options,
 * or this run fails (a demo tier name is refused with 422, a demo limit is off by a factor of ten).
 * The tier `platinum` and the scope `billing:write` are the names the suite used to send expecting
 * a refusal: configured here, it must pick names that are not.
 */
import { createKeyward, manualClock, memoryStore } from "@keyward/core";
import { permissions } from "@keyward/core/permissions";
import { afterAll } from "vitest";
import { describeHttpConformance } from "../src/index.js";
import { guardedHost } from "./support/guarded-host.js";

const jwtSecret = "own-configuration-secret-of-at-least-32-bytes";
const route = "/v2/docs/:id";

const config = {
  scopes: {
    "docs:read": "Read documents",
    "docs:write": "Write documents",
    "billing:write": "Manage billing",
  },
  tiers: {
    basic: { rateLimit: { limit: 5, window: "1m" } },
    platinum: { rateLimit: { limit: 50, window: "1m" } },
  },
  jwt: { secret: jwtSecret },
};
const keyward = createKeyward({ store: memoryStore(), ...config });
// The policies on an instance of their own, with a two-day cap and a day's inactivity limit: the
// policy checks too must take tiers, scopes and the route from the options, and the limits from
// theirs.
const clock = manualClock(Date.now());
const hour = 3_600_000;
const policyKeyward = createKeyward({
  store: memoryStore(),
  ...config,
  clock,
  features: [
    permissions({
      maxLifetime: "2d",
      disableAfterUnused: "1d",
      inactivityWarning: 0,
      inactivityScanIntervalMs: false,
    }),
  ],
});
afterAll(async () => {
  await keyward.close();
  await policyKeyward.close();
});

const hostRoute = { template: route, scopes: { GET: "docs:read", PUT: "docs:write" } };
const policyHost = guardedHost(policyKeyward, hostRoute);

describeHttpConformance("core handle, own tiers, scopes and route", {
  fetch: guardedHost(keyward, hostRoute),
  jwtSecret,
  tiers: { basic: 5, platinum: 50 },
  scopes: {
    read: "docs:read",
    write: "docs:write",
    all: ["docs:read", "docs:write", "billing:write"],
  },
  route: { template: route, path: (id) => `/v2/docs/${encodeURIComponent(id)}` },
  maxLifetime: { ms: 48 * hour, fetch: policyHost, now: clock.now },
  inactivity: {
    fetch: policyHost,
    disableAfterUnusedMs: 24 * hour,
    warningMs: 0,
    now: clock.now,
    advance: clock.advance,
    scan: () => policyKeyward.permissions.scanInactive(),
  },
});
