import { SignJWT } from "jose";
import { beforeEach, describe, expect, it } from "vitest";
import { events } from "../features/events/index.js";
import { createKeyward, type Keyward } from "../keyward/create-keyward.js";
import { memoryStore } from "../memory/memory-store.js";
import type { KeywardStore } from "../storage/index.js";

const secret = "handle-test-secret-of-at-least-32-bytes";
const scopes = { "profile:read": "Read profiles", "profile:write": "Edit profiles" };
const tiers = {
  free: { rateLimit: { limit: 60, window: "1m" } },
  pro: { rateLimit: { limit: 600, window: "1m" } },
};

let store = memoryStore();
let keyward: Keyward;
let errors: unknown[] = [];

beforeEach(() => {
  store = memoryStore();
  errors = [];
  keyward = createKeyward({
    store,
    scopes,
    tiers,
    jwt: { secret },
    onError: (error) => errors.push(error),
  });
});

const token = (sub = "alice", tier = "pro") =>
  new SignJWT({ tier })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(new TextEncoder().encode(secret));

async function call(
  method: string,
  path: string,
  init: { body?: BodyInit; headers?: Record<string, string>; as?: Keyward } = {},
) {
  const headers = { authorization: `Bearer ${await token()}`, ...init.headers };
  const request = new Request(`http://api.test${path}`, {
    method,
    headers,
    ...(init.body === undefined ? {} : { body: init.body, duplex: "half" }),
  } as RequestInit);
  const response = await (init.as ?? keyward).handle(request);
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? JSON.parse(text) : null,
  };
}

const createBody = JSON.stringify({ name: "k", scopes: ["profile:read"], tier: "free" });

describe("handle: bodies", () => {
  it("refuses a declared Content-Length over the limit before reading", async () => {
    const res = await call("POST", "/api/v1/api-keys", {
      body: createBody,
      headers: { "content-length": String(64 * 1024 + 1) },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      detail: "Request body is larger than 65536 bytes",
      code: "body_too_large",
    });
    expect(store.snapshot().keys).toEqual([]);
  });

  it("cuts off a streamed body without a length as soon as it passes the limit", async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
        if (pulled > 100) controller.close();
      },
    });
    const res = await call("POST", "/api/v1/api-keys", { body: stream });
    expect(res.status).toBe(413);
    expect(pulled).toBeLessThan(10);
  });

  it("honours a configured body limit", async () => {
    const small = createKeyward({ store, scopes, tiers, jwt: { secret }, http: { bodyLimit: 10 } });
    expect((await call("POST", "/api/v1/api-keys", { body: createBody, as: small })).status).toBe(
      413,
    );
  });

  it.each([
    ["malformed JSON", 400, "{not json"],
    ["invalid UTF-8", 400, new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])],
    ["an empty body", 422, ""],
    ["a JSON array", 422, "[]"],
    ["a JSON string", 422, '"name"'],
    ["null", 422, "null"],
  ])("answers %s with %i and stores nothing", async (_, status, body) => {
    const res = await call("POST", "/api/v1/api-keys", { body });
    expect(res.status).toBe(status);
    if (status === 400) expect(typeof res.body.detail).toBe("string");
    else expect(res.body.detail[0].loc).toEqual(["body"]);
    expect(store.snapshot().keys).toEqual([]);
  });
});

describe("handle: routing", () => {
  it("serves a custom base path and nothing outside it", async () => {
    const custom = createKeyward({
      store,
      scopes,
      tiers,
      jwt: { secret },
      http: { basePath: "/keys/" },
    });
    expect(custom.basePath).toBe("/keys");
    expect((await call("GET", "/keys", { as: custom })).status).toBe(200);
    expect((await call("GET", "/keys/scopes", { as: custom })).status).toBe(200);
    expect((await call("GET", "/api/v1/api-keys", { as: custom })).status).toBe(404);
    expect((await call("GET", "/keysmith", { as: custom })).status).toBe(404);
  });

  it.each([
    ["PUT", "/api/v1/api-keys", "GET, POST"],
    ["DELETE", "/api/v1/api-keys/scopes", "GET"],
    ["GET", "/api/v1/api-keys/key_x/rotate", "POST"],
    ["POST", "/api/v1/api-keys/key_x/usage", "GET"],
    ["PATCH", "/api/v1/api-keys/key_x", "DELETE"],
  ])("answers %s %s with 405 and Allow: %s", async (method, path, allow) => {
    const res = await call(method, path);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe(allow);
    expect(res.body).toEqual({ detail: "Method Not Allowed", code: "method_not_allowed" });
  });

  it("answers 404 for unknown paths under the base path, before authentication", async () => {
    const res = await call("GET", "/api/v1/api-keys/a/b/c", { headers: { authorization: "" } });
    expect(res.status).toBe(404);
  });

  it("answers GET /{key_id}/events as v0.1 did (404) unless events are configured", async () => {
    const created = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "pro",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    const off = await call("GET", `/api/v1/api-keys/${created.id}/events`);
    expect(off.status).toBe(404);
    expect(off.body).toEqual({ detail: "Not Found", code: "route_not_found" });
    expect((await call("OPTIONS", `/api/v1/api-keys/${created.id}/events`)).status).toBe(404);

    const withEvents = createKeyward({
      store,
      scopes,
      tiers,
      jwt: { secret },
      features: [events()],
    });
    const on = await call("GET", `/api/v1/api-keys/${created.id}/events`, { as: withEvents });
    expect(on.status).toBe(200);
    // Changes made before events were turned on have none.
    expect(on.body).toEqual({ data: [], nextCursor: null });
    const post = await call("POST", `/api/v1/api-keys/${created.id}/events`, { as: withEvents });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
    await withEvents.close();
  });

  it("decodes an escaped key id", async () => {
    const created = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "pro",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    const escaped = created.id.replace("_", "%5F");
    expect((await call("GET", `/api/v1/api-keys/${escaped}/usage`)).status).toBe(200);
    expect((await call("GET", "/api/v1/api-keys/%E0%A4%A/usage")).status).toBe(404);
  });
});

describe("handle: authentication", () => {
  it("refuses an API key on every management endpoint with 403, without a lookup", async () => {
    const created = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "pro",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    let lookups = 0;
    const counting: KeywardStore = {
      ...store,
      keys: {
        ...store.keys,
        findByHash: (hash) => {
          lookups += 1;
          return store.keys.findByHash(hash);
        },
      },
    };
    const guarded = createKeyward({ store: counting, scopes, tiers, jwt: { secret } });
    const auth = { authorization: `Bearer ${created.key}` };
    for (const [method, path] of [
      ["GET", "/api/v1/api-keys"],
      ["POST", "/api/v1/api-keys"],
      ["GET", "/api/v1/api-keys/scopes"],
      ["POST", `/api/v1/api-keys/${created.id}/rotate`],
      ["GET", `/api/v1/api-keys/${created.id}/usage`],
      ["DELETE", `/api/v1/api-keys/${created.id}`],
    ] as const) {
      const res = await call(method, path, { headers: auth, as: guarded });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(typeof res.body.detail).toBe("string");
    }
    expect(lookups).toBe(0);
    expect((await keyward.keys.list("alice"))[0]?.status).toBe("active");
  });

  it("challenges every 401 with WWW-Authenticate, and a 403 with none", async () => {
    const none = await call("GET", "/api/v1/api-keys", { headers: { authorization: "" } });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    const bad = await call("GET", "/api/v1/api-keys", {
      headers: { authorization: "Bearer x.y.z" },
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toBe(
      'Bearer error="invalid_token", error_description="Token is malformed"',
    );
    const key = await call("GET", "/api/v1/api-keys", {
      headers: { authorization: "Bearer sk_live_tooShort" },
    });
    expect(key.status).toBe(403);
    expect(key.headers.get("www-authenticate")).toBeNull();
  });

  it("puts rate-limit headers on management responses, errors included", async () => {
    const res = await call("GET", "/api/v1/api-keys/key_missing/usage");
    expect(res.status).toBe(404);
    expect(res.headers.get("x-ratelimit-limit")).toBe("600");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("599");
  });

  it("sends IETF RateLimit fields when asked", async () => {
    const ietf = createKeyward({
      store,
      scopes,
      tiers,
      jwt: { secret },
      http: { rateLimitHeaders: { ietf: true } },
    });
    const res = await call("GET", "/api/v1/api-keys", { as: ietf });
    expect(res.headers.get("ratelimit-policy")).toBe('"pro";q=600;w=60');
    expect(res.headers.get("ratelimit")).toMatch(/^"pro";r=599;t=\d+$/);
  });
});

describe("handle: failures", () => {
  it("answers 500 without internals and hands the cause to onError", async () => {
    const broken = createKeyward({
      store: {
        ...store,
        keys: {
          ...store.keys,
          listByOwner: async () => Promise.reject(new Error("pg: connection refused at 10.0.0.5")),
        },
      },
      scopes,
      tiers,
      jwt: { secret },
      onError: (error) => errors.push(error),
    });
    const res = await call("GET", "/api/v1/api-keys", { as: broken });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ detail: "Internal server error", code: "internal" });
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toContain("connection refused");
  });

  it("survives an onError hook that throws", async () => {
    const broken = createKeyward({
      store: {
        ...store,
        keys: { ...store.keys, listByOwner: async () => Promise.reject(new Error("down")) },
      },
      scopes,
      tiers,
      jwt: { secret },
      onError: () => {
        throw new Error("logger down");
      },
    });
    expect((await call("GET", "/api/v1/api-keys", { as: broken })).status).toBe(500);
  });

  it("does not report client errors to onError", async () => {
    await call("POST", "/api/v1/api-keys", { body: "{" });
    await call("GET", "/api/v1/api-keys/nope/usage");
    expect(errors).toEqual([]);
  });

  it("never returns a secret except on create and rotate", async () => {
    const created = await call("POST", "/api/v1/api-keys", { body: createBody });
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const secretValue: string = created.body.key;
    for (const path of ["/api/v1/api-keys", `/api/v1/api-keys/${created.body.id}/usage`]) {
      const res = await call("GET", path);
      expect(JSON.stringify(res.body)).not.toContain(secretValue.slice(8, 38));
    }
    const revoked = await call("DELETE", `/api/v1/api-keys/${created.body.id}`);
    expect(JSON.stringify(revoked.body)).not.toContain(secretValue.slice(8, 38));
  });
});
