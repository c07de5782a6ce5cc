import { describe, expect, it } from "vitest";
import { createKeyward, type KeywardConfig, memoryStore } from "../index.js";

const base = {
  scopes: { "profile:read": "Read profiles" },
  tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
  jwt: { secret: "secret-scanning-config-test-secret-32-bytes" },
  logger: false,
} as const;

const make = (secretScanning: unknown) =>
  createKeyward({
    store: memoryStore(),
    ...base,
    secretScanning: secretScanning as KeywardConfig["secretScanning"],
  });

describe("secretScanning configuration", () => {
  it("throws a TypeError naming the option", () => {
    expect(() => make("on")).toThrow(/`secretScanning` must be an object/);
    expect(() => make({ keysUrl: "ftp://example.com/keys" })).toThrow(/`secretScanning.keysUrl`/);
    expect(() => make({ action: "delete" })).toThrow(
      /`secretScanning.action` must be "revoke" or "report"/,
    );
    expect(() => make({ maxBodyBytes: 0 })).toThrow(/`secretScanning.maxBodyBytes`/);
    expect(() => make({ keysCacheMs: 1.5 })).toThrow(/`secretScanning.keysCacheMs`/);
    expect(() => make({ keysTimeoutMs: -1 })).toThrow(/`secretScanning.keysTimeoutMs`/);
    expect(() => make({ fetch: "fetch" })).toThrow(/`secretScanning.fetch` must be a function/);
    expect(() => make({})).not.toThrow();
    expect(() => make(false)).not.toThrow();
  });

  it("leaves /secret-scanning answering exactly as before when it is off", async () => {
    const off = make(undefined);
    const on = make({ keysUrl: "http://127.0.0.1:1/keys" });
    for (const method of ["POST", "GET", "DELETE", "OPTIONS"]) {
      const request = () =>
        new Request("http://host.test/api/v1/api-keys/secret-scanning", {
          method,
          ...(method === "POST" ? { body: "[]" } : {}),
        });
      const before = await make(false).handle(request());
      const after = await off.handle(request());
      expect(after.status, method).toBe(before.status);
      expect(await after.text()).toBe(await before.text());
      expect(after.headers.get("allow")).toBe(before.headers.get("allow"));
    }
    // Without the option a POST there is the key route's 405; with it, the endpoint's 401.
    const post = new Request("http://host.test/api/v1/api-keys/secret-scanning", {
      method: "POST",
      body: "[]",
    });
    expect((await off.handle(post.clone())).status).toBe(405);
    expect((await on.handle(post)).status).toBe(401);
  });

  it("puts the endpoint in the OpenAPI document only when configured", () => {
    const path = "/api/v1/api-keys/secret-scanning";
    expect(make(undefined).openapi().paths[path]).toBeUndefined();
    const document = make({}).openapi();
    const operation = document.paths[path]?.post;
    expect(operation?.operationId).toBe("reportLeakedTokens");
    expect(Object.keys(operation?.responses ?? {}).sort()).toEqual(
      ["200", "401", "405", "413", "422", "500", "503"].sort(),
    );
    // The shared 401 stays the bearer one: the signature's code is described on this path only.
    expect(JSON.stringify(document.components.responses.Unauthorized)).not.toContain(
      "invalid_signature",
    );
  });
});
