import { describe, expect, it } from "vitest";
import { requestMethodLabel, routeWithMethod, splitRouteLabel } from "./route-label.js";

describe("routeWithMethod", () => {
  it("puts the request's method in front of a template without one, and keeps one that has it", () => {
    expect(routeWithMethod("GET", "/profiles/:slug")).toBe("GET /profiles/:slug");
    expect(routeWithMethod("get", "/profiles/:slug")).toBe("GET /profiles/:slug");
    expect(routeWithMethod("GET", "PUT /profiles/:slug")).toBe("PUT /profiles/:slug");
    expect(routeWithMethod("PROPFIND", "/files/*")).toBe("OTHER /files/*");
    expect(routeWithMethod("X".repeat(5_000), "/files/*")).toBe("OTHER /files/*");
  });

  it("answers the same for every call, whatever came before (labels are remembered)", () => {
    const calls: [string, string, string][] = [
      ["POST", "/a", "POST /a"],
      ["post", "/a", "POST /a"],
      ["POST", "/a", "POST /a"],
      ["DELETE", "/a", "DELETE /a"],
      ["BREW", "/a", "OTHER /a"],
      ["POST", "/b", "POST /b"],
      ["POST", `/${"long/".repeat(100)}`, `POST /${"long/".repeat(100)}`],
    ];
    for (let round = 0; round < 3; round++) {
      for (const [method, route, label] of calls)
        expect(routeWithMethod(method, route)).toBe(label);
    }
  });

  it("labels every route correctly past the number it remembers", () => {
    for (let i = 0; i < 1_200; i++) {
      expect(routeWithMethod("GET", `/users/${i}`)).toBe(`GET /users/${i}`);
    }
    expect(routeWithMethod("GET", "/users/0")).toBe("GET /users/0");
  });
});

describe("route labels", () => {
  it("split into method and route, and standard methods alone are kept", () => {
    expect(splitRouteLabel("get /p/:slug")).toEqual({ method: "GET", route: "/p/:slug" });
    expect(splitRouteLabel(undefined)).toEqual({ method: "ANY", route: "*" });
    expect(requestMethodLabel("patch")).toBe("PATCH");
    expect(requestMethodLabel("MKCOL")).toBe("OTHER");
  });
});
