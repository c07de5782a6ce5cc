import { describe, expect, it } from "vitest";
import { withHeaders } from "./with-headers.js";

const rateLimit = { "X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "59" };

describe("withHeaders", () => {
  it("sets the headers on a response whose headers can change, and returns that response", () => {
    const response = new Response("ok", { status: 201, headers: { "content-type": "text/plain" } });
    const result = withHeaders(response, rateLimit);
    expect(result).toBe(response);
    expect(result.headers.get("x-ratelimit-limit")).toBe("60");
    expect(result.headers.get("x-ratelimit-remaining")).toBe("59");
    expect(result.headers.get("content-type")).toBe("text/plain");
  });

  it("copies a response whose headers are immutable, keeping its status and headers", () => {
    const redirect = Response.redirect("https://example.com/elsewhere", 302);
    expect(() => redirect.headers.set("x-probe", "1")).toThrow();
    const result = withHeaders(redirect, rateLimit);
    expect(result).not.toBe(redirect);
    expect(result.status).toBe(302);
    expect(result.headers.get("location")).toBe("https://example.com/elsewhere");
    expect(result.headers.get("x-ratelimit-limit")).toBe("60");
  });

  it("returns a response that can be neither changed nor copied as it is", () => {
    // A 101 from a WebSocket upgrade: immutable headers, and a status `new Response` refuses.
    // Node cannot make one without a socket, so a redirect is given the upgrade's status.
    const upgrade = Response.redirect("https://example.com/socket", 302);
    Object.defineProperty(upgrade, "status", { value: 101 });
    expect(() => new Response(null, upgrade)).toThrow(RangeError);
    expect(withHeaders(upgrade, rateLimit)).toBe(upgrade);
  });

  it("returns the response untouched when there is no header to add", () => {
    const redirect = Response.redirect("https://example.com/elsewhere", 302);
    expect(withHeaders(redirect, {})).toBe(redirect);
  });
});
