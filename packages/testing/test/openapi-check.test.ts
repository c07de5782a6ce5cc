/**
 * The HTTP suite's OpenAPI check must refuse what the document does not describe; a check that
 * accepts everything would make every adapter's run pass vacuously.
 */
import { createKeyward, memoryStore } from "@keyward/core";
import { describe, expect, it } from "vitest";
import { DEMO_OPENAPI_ROUTES, demoKeywardConfig, openApiResponseCheck } from "../src/index.js";

const keyward = createKeyward({
  store: memoryStore(),
  ...demoKeywardConfig("openapi-check-secret-of-at-least-32-bytes", {
    openapi: { routes: DEMO_OPENAPI_ROUTES },
  }),
});
const check = openApiResponseCheck(keyward.openapi());

const rateLimited = {
  "x-ratelimit-limit": "60",
  "x-ratelimit-remaining": "59",
  "x-ratelimit-reset": "1767225720",
  "content-type": "application/json",
};
const revoked = { id: "key_1", status: "revoked", revokedAt: "2026-01-01T00:00:00.000Z" };

function reply(status: number, body: unknown, headers: Record<string, string> = rateLimited) {
  const text = body === undefined ? "" : JSON.stringify(body);
  return { status, headers: new Headers(headers), text, body };
}

describe("openApiResponseCheck", () => {
  it("accepts an answer the document describes", () => {
    expect(check("DELETE", "/api/v1/api-keys/key_1", reply(200, revoked))).toEqual([]);
    expect(
      check("GET", "/api/v1/profiles/alice", reply(200, { slug: "alice", viewer: "user_1" })),
    ).toEqual([]);
  });

  it("refuses a status the operation does not describe", () => {
    const [problem] = check("DELETE", "/api/v1/api-keys/key_1", reply(201, revoked));
    expect(problem).toMatch(/answered 201, which it does not describe/);
  });

  it("refuses a body that does not match the schema", () => {
    const problems = check(
      "DELETE",
      "/api/v1/api-keys/key_1",
      reply(200, { ...revoked, status: "active" }),
    );
    expect(problems.join()).toMatch(/body\/status must be equal to constant/);
    expect(
      check(
        "DELETE",
        "/api/v1/api-keys/key_1",
        reply(200, { ...revoked, revokedAt: "yesterday" }),
      ).join(),
    ).toMatch(/must match format "date-time"/);
  });

  it("refuses a missing required header and a malformed one", () => {
    const { "x-ratelimit-remaining": _, ...withoutRemaining } = rateLimited;
    expect(
      check("DELETE", "/api/v1/api-keys/key_1", reply(200, revoked, withoutRemaining)).join(),
    ).toMatch(/X-RateLimit-Remaining is required and missing/);
    const malformed = { ...rateLimited, "x-ratelimit-limit": "sixty" };
    expect(
      check("DELETE", "/api/v1/api-keys/key_1", reply(200, revoked, malformed)).join(),
    ).toMatch(/header X-RateLimit-Limit: "sixty"/);
  });

  it("refuses an error code the status cannot carry", () => {
    const body = { detail: "gone", code: "key_not_found" };
    expect(check("DELETE", "/api/v1/api-keys/key_1", reply(410, body)).join()).toMatch(
      /body\/code must be equal to constant/,
    );
  });

  it("needs a 404 with the error body for a path the document does not have", () => {
    const notFound = { detail: "Not Found", code: "route_not_found" };
    expect(check("GET", "/api/v1/api-keys/a/b/c", reply(404, notFound))).toEqual([]);
    expect(check("GET", "/api/v1/api-keys/a/b/c", reply(200, notFound)).join()).toMatch(
      /no documented path, yet answered 200/,
    );
  });

  it("needs a 405 whose Allow names the path's documented methods", () => {
    const body = { detail: "Method Not Allowed", code: "method_not_allowed" };
    expect(check("PUT", "/api/v1/api-keys", reply(405, body, { allow: "GET, POST" }))).toEqual([]);
    expect(check("PUT", "/api/v1/api-keys", reply(405, body, { allow: "GET" })).join()).toMatch(
      /lacks documented POST/,
    );
  });

  it("refuses a body where the document describes none", () => {
    const problems = check(
      "OPTIONS",
      "/api/v1/api-keys",
      reply(204, { surprise: true }, { allow: "GET, POST, OPTIONS" }),
    );
    expect(problems.join()).toMatch(/a body where the document describes none/);
  });
});

describe("a 429 for credits without a refill, against the document", () => {
  it("is described: it names the layer and carries no Retry-After, there being no time to promise", async () => {
    const store = memoryStore();
    const config = demoKeywardConfig("openapi-check-secret-of-at-least-32-bytes", {
      openapi: { routes: DEMO_OPENAPI_ROUTES },
    });
    const withCredits = createKeyward({ ...config, store, logger: false });
    const [route] = DEMO_OPENAPI_ROUTES;
    const tier = Object.keys(config.tiers)[0]!;
    const { id, key } = await withCredits.keys.create({
      ownerId: "credits-user",
      accountTier: tier,
      name: "metered",
      scopes: [...(route!.scopes ?? [])],
      tier,
    });
    await withCredits.keys.setLimits(id, { credits: { remaining: 1 } });
    const path = route!.path.replace(/:([A-Za-z0-9_]+)/g, "x");
    const answer = async () => {
      const result = await withCredits.verify(`Bearer ${key}`, {
        scopes: route!.scopes ?? [],
        route: `${route!.method} ${route!.path}`,
      });
      if (result.ok)
        return reply(
          200,
          { slug: "x", viewer: result.principal.userId },
          { ...result.headers, "content-type": "application/json" },
        );
      const response = result.error.toResponse(result.headers);
      const text = await response.text();
      return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
    };
    const documented = openApiResponseCheck(withCredits.openapi());
    expect(documented(route!.method, path, await answer())).toEqual([]);
    const refused = await answer();
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      detail: "API key has no credits left",
      code: "credits_exhausted",
    });
    expect(refused.headers.get("retry-after")).toBeNull();
    expect(documented(route!.method, path, refused)).toEqual([]);
  });
});
