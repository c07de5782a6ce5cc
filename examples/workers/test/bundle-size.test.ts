/**
 * What a Fetch app on Workers ships: a memory store, the key-management endpoints and one guarded
 * route, bundled and minified by esbuild as Wrangler would, with no feature listed and with every
 * feature there is, and the same kernel-only app on `@keyward/cloudflare`'s Durable Objects store
 * (the store and its object class in one module, as a Worker deploys them). The figures are printed on every run (docs/benchmarks.md keeps their history),
 * and the kernel-only bundle is held to a budget so that it does not grow back.
 */
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const sourceDir = fileURLToPath(new URL("../src", import.meta.url));

const everyFeatureImports = `import { events } from "@keyward/core/events";
import { lifecycle } from "@keyward/core/lifecycle";
import { openapi } from "@keyward/core/openapi";
import { organizations } from "@keyward/core/organizations";
import { secretScanning } from "@keyward/core/secret-scanning";
import { webhooks } from "@keyward/webhooks";`;

const app = (everyFeature: boolean) => `
import { createKeyward, memoryStore } from "@keyward/core";
import { keywardFetchHandler, withApiKey } from "@keyward/fetch";
${everyFeature ? everyFeatureImports : ""}
const keyward = createKeyward({
  store: memoryStore(),
  scopes: { "profile:read": "Read" },
  tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
  jwt: { secret: "a-secret-of-at-least-thirty-two-bytes!" },
  ${everyFeature ? `keys: { environments: { live: "sk_live_", test: "sk_test_" } },` : ""}
  ${
    everyFeature
      ? `features: [events(), organizations({ memberships: () => [] }),
    lifecycle({ gracefulRotation: true }),
    openapi({ serve: true }), secretScanning(), webhooks({ endpoints: [] })],`
      : ""
  }
});
const api = keywardFetchHandler(keyward);
const profile = withApiKey(keyward, { scopes: ["profile:read"], route: "GET /profile" },
  (request, principal) => Response.json(principal));
export default { fetch: async (request) => (await api(request)) ?? profile(request) };
`;

/** The kernel-only app on Durable Objects: the store per isolate, the object class exported. */
const cloudflareApp = `
import { createKeyward } from "@keyward/core";
import { cloudflareStore } from "@keyward/cloudflare";
import { keywardFetchHandler, withApiKey } from "@keyward/fetch";
export { KeywardObject } from "@keyward/cloudflare";
let handler;
export default {
  async fetch(request, env) {
    if (!handler) {
      const keyward = createKeyward({
        store: cloudflareStore({ namespace: env.KEYWARD }),
        scopes: { "profile:read": "Read" },
        tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
        jwt: { secret: "a-secret-of-at-least-thirty-two-bytes!" },
      });
      const api = keywardFetchHandler(keyward);
      const profile = withApiKey(keyward, { scopes: ["profile:read"], route: "GET /profile" },
        (request, principal) => Response.json(principal));
      handler = async (request) => (await api(request)) ?? profile(request);
    }
    return handler(request);
  },
};
`;

async function minifiedBytes(source: string): Promise<number> {
  return (await minified({ source })).length;
}

/** The app (source text, or an entry file of this example) bundled and minified as Wrangler would. */
async function minified(app: { source: string } | { entry: string }): Promise<Uint8Array> {
  const result = await build({
    ...("source" in app
      ? {
          stdin: {
            contents: app.source,
            resolveDir: sourceDir,
            sourcefile: "app.ts",
            loader: "ts",
          },
        }
      : { entryPoints: [fileURLToPath(new URL(`../src/${app.entry}`, import.meta.url))] }),
    bundle: true,
    write: false,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["@keyward/source", "workerd", "worker", "browser"],
    logLevel: "silent",
  });
  return result.outputFiles[0]!.contents;
}

/**
 * The kernel-only budget, 250 KB: what a Workers app that lists no feature should cost. Code a host only needs with a feature listed
 * (the verification observer wrapper, the memory store's webhook outbox) lives where only that
 * feature reaches it; docs/benchmarks.md, "Bundle", keeps the history and what the bytes are.
 */
const kernelBudgetBytes = 250 * 1024;

/** Cloudflare's limit on a Worker's size after compression, on the Workers Free plan: 3 MB. */
const freePlanLimitBytes = 3 * 1024 * 1024;

describe("a Fetch app's bundle on Workers", () => {
  it("is printed, with no feature and with every feature, and the kernel stays within its budget", async () => {
    const [kernel, everything, onDurableObjects] = await Promise.all([
      minifiedBytes(app(false)),
      minifiedBytes(app(true)),
      minifiedBytes(cloudflareApp),
    ]);
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
    console.log(
      `[bundle] Fetch app, memory store, one guarded route, minified: no feature ${kb(kernel)}; every feature ${kb(everything)}`,
    );
    console.log(
      `[bundle] the same app (no feature) on @keyward/cloudflare's Durable Objects store, with KeywardObject, minified: ${kb(onDurableObjects)}`,
    );
    expect(kernel).toBeLessThan(everything);
    // The store replaces the memory store, and the object class comes with it: more, not less.
    expect(onDurableObjects).toBeGreaterThan(kernel);
    expect(kernel).toBeLessThanOrEqual(kernelBudgetBytes);
  }, 60_000);
});

describe("the Workers example's own bundle (worker.ts: the demo, /mcp with the MCP SDK, completions)", () => {
  it("is printed, minified and gzipped, and fits Cloudflare's free plan", async () => {
    const bytes = await minified({ entry: "worker.ts" });
    const gzipped = gzipSync(bytes).length;
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
    console.log(
      `[bundle] examples/workers worker.ts, minified: ${kb(bytes.length)}; gzip ${kb(gzipped)}`,
    );
    expect(gzipped).toBeLessThanOrEqual(freePlanLimitBytes);
  }, 60_000);
});
