import { describe, expect, expectTypeOf, it } from "vitest";
import { createKeyward, memoryStore } from "../../index.js";
import { openapi } from "../openapi/index.js";
import { secretScanning } from "./index.js";

const base = {
  scopes: { "profile:read": "Read profiles" },
  tiers: { free: { rateLimit: { limit: 60, window: "1m" } } },
  jwt: { secret: "secret-scanning-config-test-secret-32-bytes" },
  logger: false,
} as const;

const make = (config?: unknown) =>
  createKeyward({
    store: memoryStore(),
    ...base,
    ...(config === undefined ? {} : { features: [secretScanning(config as never)] }),
  });

describe("secretScanning(): the feature", () => {
  it("throws a TypeError naming the field when it is created", () => {
    expect(() => secretScanning("on" as never)).toThrow(
      /`secretScanning\(config\)` takes an object/,
    );
    expect(() => secretScanning(null as never)).toThrow(/takes an object/);
    expect(() => secretScanning({ keysUrl: "ftp://example.com/keys" })).toThrow(
      /`secretScanning.keysUrl`/,
    );
    expect(() => secretScanning({ action: "delete" as never })).toThrow(
      /`secretScanning.action` must be "revoke" or "report"/,
    );
    expect(() => secretScanning({ maxBodyBytes: 0 })).toThrow(/`secretScanning.maxBodyBytes`/);
    expect(() => secretScanning({ keysCacheMs: 1.5 })).toThrow(/`secretScanning.keysCacheMs`/);
    expect(() => secretScanning({ keysTimeoutMs: -1 })).toThrow(/`secretScanning.keysTimeoutMs`/);
    expect(() => secretScanning({ fetch: "fetch" as never })).toThrow(
      /`secretScanning.fetch` must be a function/,
    );
    expect(() => secretScanning({})).not.toThrow();
    expect(() => secretScanning()).not.toThrow();
  });

  it("leaves /secret-scanning answering as a key route does when it is not listed", async () => {
    const off = make();
    const on = make({ keysUrl: "http://127.0.0.1:1/keys" });
    // Not listed, the path is the key route's, for a key id no key can have.
    const request = (method: string) =>
      new Request("http://host.test/api/v1/api-keys/secret-scanning", {
        method,
        ...(method === "POST" ? { body: "[]" } : {}),
      });
    const post = await off.handle(request("POST"));
    expect(post.status).toBe(405);
    const keyRoute = await off.handle(
      new Request("http://host.test/api/v1/api-keys/key_x", { method: "POST", body: "[]" }),
    );
    expect(post.headers.get("allow")).toBe(keyRoute.headers.get("allow"));
    expect(await post.text()).toBe(await keyRoute.text());
    // Listed, the endpoint's own: a POST without a signature is its 401.
    const signed = await on.handle(request("POST"));
    expect(signed.status).toBe(401);
    expect(await signed.json()).toMatchObject({ code: "invalid_signature" });
    expect((await on.handle(request("GET"))).headers.get("allow")).toBe("POST");
  });

  it("puts the endpoint in the OpenAPI document only when listed", () => {
    const path = "/api/v1/api-keys/secret-scanning";
    const documentOf = (features: Parameters<typeof createKeyward>[0]["features"] = []) =>
      createKeyward({
        store: memoryStore(),
        ...base,
        features: [openapi(), ...features],
      }).openapi();
    expect(documentOf().paths[path]).toBeUndefined();
    const document = documentOf([secretScanning()]);
    const operation = document.paths[path]?.post;
    expect(operation?.operationId).toBe("reportLeakedTokens");
    expect(Object.keys(operation?.responses ?? {}).sort()).toEqual(
      ["200", "401", "405", "413", "422", "500", "503"].sort(),
    );
    // Its preflight is described like every other path's.
    expect(document.paths[path]?.options).toBeDefined();
    // The shared 401 stays the bearer one: the signature's code is described on this path only.
    expect(JSON.stringify(document.components.responses.Unauthorized)).not.toContain(
      "invalid_signature",
    );
  });

  it("adds no API to the instance", () => {
    const keyward = createKeyward({ store: memoryStore(), ...base, features: [secretScanning()] });
    expectTypeOf(keyward).not.toHaveProperty("secretScanning");
    expect(Object.keys(keyward)).not.toContain("secretScanning");
  });
});
