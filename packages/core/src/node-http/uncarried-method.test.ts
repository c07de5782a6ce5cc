import { describe, expect, it } from "vitest";
import { uncarriedMethodResponse } from "./uncarried-method.js";

const basePath = "/api/v1/api-keys";

describe("uncarriedMethodResponse", () => {
  it("leaves every method a Fetch Request can carry to toFetchRequest", () => {
    for (const method of ["GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD", "SEARCH"]) {
      expect(uncarriedMethodResponse(method, basePath, basePath)).toBeUndefined();
      expect(() => new Request("http://localhost/", { method })).not.toThrow();
    }
  });

  it.each([
    ["TRACE", basePath, "GET, POST"],
    ["CONNECT", `${basePath}/scopes`, "GET"],
    ["TRACK", `${basePath}/key_1/rotate?x=1`, "POST"],
    ["trace", `${basePath}/key_1`, "DELETE"],
  ])(
    "answers %s %s with 405 and Allow: %s, as the router answers any method it lacks",
    async (method, path, allow) => {
      expect(() => new Request("http://localhost/", { method })).toThrow();
      const response = uncarriedMethodResponse(method, path, basePath)!;
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe(allow);
      expect(await response.json()).toEqual({
        detail: "Method Not Allowed",
        code: "method_not_allowed",
      });
    },
  );

  it.each([
    `${basePath}/key_1/nowhere`,
    // Dot segments resolve as they do for `handle`: this is /api/v1/scopes, outside the base path.
    `${basePath}/%2e%2e/scopes`,
    "//elsewhere/api/v1/api-keys",
  ])("answers 404 on %s, which is no endpoint", async (path) => {
    const response = uncarriedMethodResponse("TRACE", path, basePath)!;
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: "Not Found", code: "route_not_found" });
  });
});
