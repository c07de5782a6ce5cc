/**
 * What a Fetch app on Workers ships: a memory store, the key-management endpoints and one guarded
 * route, bundled and minified by esbuild as Wrangler would, with no feature listed and with every
 * feature there is. The figures are printed on every run (docs/benchmarks.md keeps their history),
 * and the kernel-only bundle is held to a budget so that it does not grow back.
 */
import { fileURLToPath } from "node:url";
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
  ${
    everyFeature
      ? `features: [events(), organizations({ memberships: () => [] }),
    lifecycle({ gracefulRotation: true, environments: { live: "sk_live_", test: "sk_test_" } }),
    openapi({ serve: true }), secretScanning(), webhooks({ endpoints: [] })],`
      : ""
  }
});
const api = keywardFetchHandler(keyward);
const profile = withApiKey(keyward, { scopes: ["profile:read"], route: "GET /profile" },
  (request, principal) => Response.json(principal));
export default { fetch: async (request) => (await api(request)) ?? profile(request) };
`;

async function minifiedBytes(source: string): Promise<number> {
  const result = await build({
    stdin: { contents: source, resolveDir: sourceDir, sourcefile: "app.ts", loader: "ts" },
    bundle: true,
    write: false,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["@keyward/source", "workerd", "worker", "browser"],
    logLevel: "silent",
  });
  return result.outputFiles[0]!.contents.length;
}

/**
 * The kernel-only budget, 250 KB: what a Workers app that lists no feature should cost. Code a host only needs with a feature listed
 * (the verification observer wrapper, the memory store's webhook outbox) lives where only that
 * feature reaches it; docs/benchmarks.md, "Bundle", keeps the history and what the bytes are.
 */
const kernelBudgetBytes = 250 * 1024;

describe("a Fetch app's bundle on Workers", () => {
  it("is printed, with no feature and with every feature, and the kernel stays within its budget", async () => {
    const [kernel, everything] = await Promise.all([
      minifiedBytes(app(false)),
      minifiedBytes(app(true)),
    ]);
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
    console.log(
      `[bundle] Fetch app, memory store, one guarded route, minified: no feature ${kb(kernel)}; every feature ${kb(everything)}`,
    );
    expect(kernel).toBeLessThan(everything);
    expect(kernel).toBeLessThanOrEqual(kernelBudgetBytes);
  }, 60_000);
});
