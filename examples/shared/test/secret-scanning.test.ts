/**
 * The demo's secret-scanning endpoint (docs/leaked-keys.md): always on, with its signing
 * keys fetched from `KEYWARD_SECRET_SCANNING_KEYS_URL` (here a local key server) or GitHub's.
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { startScannerKeyServer } from "@keyward/testing";
import { describe, expect, it } from "vitest";
import { loadDemoConfig } from "../src/config.js";
import { demoKeywardOptions } from "../src/create-demo.js";

describe("KEYWARD_SECRET_SCANNING_KEYS_URL", () => {
  it("is unset by default (GitHub's keys) and must be an http(s) URL", () => {
    expect(loadDemoConfig({}).secretScanningKeysUrl).toBeUndefined();
    const features = demoKeywardOptions(loadDemoConfig({})).features ?? [];
    expect(features.map((feature) => feature.name)).toEqual([
      "secretScanning",
      "organizations",
      "lifecycle",
      "events",
      "imports",
      "openapi",
      "otel",
      "permissions",
      "agentTokens",
      "budgets",
    ]);
    expect(() => loadDemoConfig({ KEYWARD_SECRET_SCANNING_KEYS_URL: "keys.json" })).toThrow(
      /KEYWARD_SECRET_SCANNING_KEYS_URL must be an http\(s\) URL/,
    );
  });

  it("points the demo's endpoint at that key server: a signed report revokes the leaked key", async () => {
    const keys = await startScannerKeyServer();
    const config = loadDemoConfig({ KEYWARD_SECRET_SCANNING_KEYS_URL: keys.url });
    const keyward = createKeyward({
      store: memoryStore(),
      ...demoKeywardOptions(config),
      logger: false,
    });
    try {
      const leaked = await keyward.keys.create({
        ownerId: "user_demo",
        accountTier: "free",
        name: "committed by mistake",
        scopes: ["profile:read"],
        tier: "free",
      });
      const body = JSON.stringify([
        {
          token: leaked.key,
          type: "keyward_demo_key",
          url: "https://github.com/o/r/blob/1/.env",
          source: "content",
        },
      ]);
      const reply = await keyward.handle(
        new Request("http://demo.test/api/v1/api-keys/secret-scanning", {
          method: "POST",
          headers: { "content-type": "application/json", ...(await keys.sign(body)) },
          body,
        }),
      );
      expect(reply.status).toBe(200);
      expect(await reply.json()).toEqual([
        { token_raw: leaked.key, token_type: "keyward_demo_key", label: "true_positive" },
      ]);
      expect((await keyward.keys.list("user_demo"))[0]?.status).toBe("revoked");
    } finally {
      await keyward.close();
      await keys.close();
    }
  });
});
