/**
 * A feature module reaches a host's bundle only when the host lists it: the Worker is bundled by
 * esbuild as Wrangler would, once with the kernel alone and once with `secretScanning()`, and the
 * feature's code (its signature header, its OpenAPI operation) is in the second only.
 */
import { describe, expect, it } from "vitest";
import { bundleWorker } from "../src/workerd.js";

const kernelOnly = `
import { createKeyward, memoryStore } from "@keyward/core";
const keyward = createKeyward({
  store: memoryStore(),
  scopes: { "profile:read": "Read" },
  tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
  jwt: false,
});
export default { fetch: (request) => keyward.handle(request) };
`;

const withSecretScanning = kernelOnly
  .replace(
    'import { createKeyward, memoryStore } from "@keyward/core";',
    'import { createKeyward, memoryStore } from "@keyward/core";\nimport { secretScanning } from "@keyward/core/secret-scanning";',
  )
  .replace("jwt: false,", "jwt: false,\n  features: [secretScanning()],");

/** Strings only the secret-scanning feature's code holds. */
const featureMarkers = [/github-public-key-signature/i, /reportLeakedTokens/];

describe("feature modules in a Worker's bundle", () => {
  it("leaves secret scanning out of a Worker that does not list it", async () => {
    const [kernel, listed] = await Promise.all([
      bundleWorker({ fromSource: true, source: kernelOnly }),
      bundleWorker({ fromSource: true, source: withSecretScanning }),
    ]);
    for (const marker of featureMarkers) {
      expect(listed, `listed: ${marker}`).toMatch(marker);
      expect(kernel, `not listed: ${marker}`).not.toMatch(marker);
    }
    expect(kernel.length).toBeLessThan(listed.length);
  }, 60_000);
});
