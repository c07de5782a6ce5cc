/**
 * The secret-scanning endpoint on core's own `handle`, memory store: the conformance suite, and what
 * it does not cover: no `events` configured (keys are still revoked, the leak goes to the logger),
 * and a leaked secret that a graceful rotation replaced.
 */
import { createKeyward, type KeywardConfig, memoryStore } from "@keyward/core";
import { secretScanning } from "@keyward/core/secret-scanning";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  demoKeywardConfig,
  describeSecretScanning,
  type ScannerKeyServer,
  startScannerKeyServer,
} from "../src/index.js";

const jwtSecret = "secret-scanning-core-secret-of-at-least-32-bytes";

describeSecretScanning("core handle, memory store", {
  serve: async (config) => {
    const keyward = createKeyward({
      store: memoryStore(),
      ...demoKeywardConfig(jwtSecret, { features: [secretScanning(config)] }),
    });
    return { fetch: (request) => keyward.handle(request), keyward, close: () => keyward.close() };
  },
});

describe("secret scanning beyond the suite", () => {
  let keys: ScannerKeyServer;
  beforeAll(async () => {
    keys = await startScannerKeyServer();
  });
  afterAll(() => keys.close());

  const report = async (keyward: ReturnType<typeof createKeyward>, entries: unknown[]) => {
    const body = JSON.stringify(entries);
    return keyward.handle(
      new Request("http://host.test/api/v1/api-keys/secret-scanning", {
        method: "POST",
        headers: { "content-type": "application/json", ...(await keys.sign(body)) },
        body,
      }),
    );
  };
  const keywardWith = (overrides: Omit<Partial<KeywardConfig>, "features">) =>
    createKeyward({
      store: memoryStore(),
      ...demoKeywardConfig(jwtSecret, { features: [secretScanning({ keysUrl: keys.url })] }),
      ...overrides,
    });
  const newKey = (keyward: ReturnType<typeof createKeyward>, ownerId: string) =>
    keyward.keys.create({
      ownerId,
      accountTier: "free",
      name: "leak",
      scopes: ["profile:read"],
      tier: "free",
    });

  it("without events still revokes, and tells the logger instead of the audit log", async () => {
    const warnings: string[] = [];
    const demo = demoKeywardConfig(jwtSecret);
    const keyward = createKeyward({
      store: memoryStore(),
      ...demo,
      // The demo's features but `events()`.
      features: [
        ...demo.features.filter((feature) => feature.name !== "events"),
        secretScanning({ keysUrl: keys.url }),
      ],
      logger: { error() {}, warn: (message) => warnings.push(message) },
    });
    const key = await newKey(keyward, "user_no_events");
    const reply = await report(keyward, [
      { token: key.key, type: "t", url: "https://github.com/o/r/blob/1/.env", source: "content" },
    ]);
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as { label: string }[])[0]?.label).toBe("true_positive");
    expect((await keyward.keys.list("user_no_events"))[0]?.status).toBe("revoked");
    const warning = warnings.find((message) => message.includes("secret scanning"));
    expect(warning).toContain(key.id);
    expect(warning).toContain("https://github.com/o/r/blob/1/.env");
    expect(warnings.join("\n")).not.toContain(key.key);
    await keyward.close();
  });

  it("revokes a key whose replaced secret leaked during a graceful rotation", async () => {
    const keyward = keywardWith({});
    const key = await newKey(keyward, "user_grace");
    const rotated = await keyward.keys.rotate("user_grace", key.id, { gracePeriodSeconds: 3600 });
    const reply = await report(keyward, [{ token: key.key, type: "t" }]);
    expect(((await reply.json()) as { label: string }[])[0]?.label).toBe("true_positive");
    expect((await keyward.verify(`Bearer ${rotated.key}`, { route: "GET /x" })).ok).toBe(false);
    const { data } = await keyward.events.list({ owner: "user_grace", keyId: key.id });
    const leaked = data.find((event) => event.type === "key.leaked");
    expect(leaked?.data).toMatchObject({
      action: "revoked",
      hint: `sk_live_…${key.key.slice(-4)}`,
    });
    await keyward.close();
  });
});
