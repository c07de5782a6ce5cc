/**
 * A feature module reaches a host's bundle only when the host lists it: the Worker is bundled by
 * esbuild as Wrangler would, with the kernel alone and with each feature, and each feature's code
 * (and, for webhooks, its dependency `standardwebhooks`) is found only where it is listed.
 */
import { describe, expect, it } from "vitest";
import { bundleWorker } from "../src/workerd.js";

const workerWith = ({ imports = "", features = "" }: { imports?: string; features?: string }) => `
import { createKeyward, memoryStore } from "@keyward/core";
${imports}
const keyward = createKeyward({
  store: memoryStore(),
  scopes: { "profile:read": "Read" },
  tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
  jwt: false,
  features: [${features}],
});
export default { fetch: (request) => keyward.handle(request) };
`;

const features = [
  {
    name: "organizations",
    imports: 'import { organizations } from "@keyward/core/organizations";',
    features: "organizations({ memberships: () => [] })",
    // Its role check's refusal.
    markers: [/does not permit this action/],
  },
  {
    name: "lifecycle",
    imports: 'import { lifecycle } from "@keyward/core/lifecycle";',
    features: "lifecycle()",
    // ipaddr.js, which IP allowlists parse addresses with, and lifecycle's own checks.
    markers: [/ipaddr: /, /lifecycle\(\) takes an object/],
  },
  {
    name: "events",
    imports: 'import { events } from "@keyward/core/events";',
    features: "events()",
    // The hook's failure report and the expiry scan's.
    markers: [/the onEvent hook failed/, /looking for expiring keys failed/],
  },
  {
    name: "openapi",
    imports: 'import { openapi } from "@keyward/core/openapi";',
    features: "openapi({ serve: true })",
    markers: [/jsonSchemaDialect/, /getOpenApiDocument/],
  },
  {
    name: "secretScanning",
    imports: 'import { secretScanning } from "@keyward/core/secret-scanning";',
    features: "secretScanning()",
    // Its signature header and its OpenAPI operation.
    markers: [/github-public-key-signature/i, /reportLeakedTokens/],
  },
  {
    name: "permissions",
    imports: 'import { permissions } from "@keyward/core/permissions";',
    features: 'permissions({ maxLifetime: "30d" })',
    // Its narrowing check, and its lifetime policy's config error.
    markers: [/resources can only be narrowed/, /permissions\(\) takes an object/],
  },
  {
    name: "webhooks",
    // Webhooks deliver events: events() is listed with them.
    imports:
      'import { events } from "@keyward/core/events";\nimport { webhooks } from "@keyward/webhooks";',
    features:
      'events(), webhooks({ endpoints: [{ id: "a", url: "https://example.com", secret: "whsec_x" }] })',
    // The Standard Webhooks headers, and standardwebhooks' own error for a bad signature.
    markers: [/webhook-signature/, /No matching signature found/],
  },
];

describe("feature modules in a Worker's bundle", () => {
  it.each(features)(
    "leaves $name out of a Worker that does not list it",
    async (feature) => {
      const [kernel, listed] = await Promise.all([
        bundleWorker({ fromSource: true, source: workerWith({}) }),
        bundleWorker({ fromSource: true, source: workerWith(feature) }),
      ]);
      for (const marker of feature.markers) {
        expect(listed, `listed: ${marker}`).toMatch(marker);
        expect(kernel, `not listed: ${marker}`).not.toMatch(marker);
      }
      expect(kernel.length).toBeLessThan(listed.length);
    },
    60_000,
  );
});
