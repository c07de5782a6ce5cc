import { createKeyFormat } from "@keyward/core/toolkit";
import { describe, expect, it } from "vitest";
import { newUserId } from "../http/client.js";
import { rawExchange, requestBytes } from "../http/raw-exchange.js";
import type { NodeAdapterFixture } from "./fixture.js";

/** A reply in the contract's shape: the status, JSON, and a string `detail` and `code` only. */
function expectDetail(
  reply: { status: number; headers: Record<string, string>; json: unknown },
  status: number,
): string {
  expect(reply.status, JSON.stringify(reply)).toBe(status);
  expect(reply.headers["content-type"]).toMatch(/^application\/json/);
  expect(reply.json).toEqual({ detail: expect.any(String), code: expect.any(String) });
  return (reply.json as { detail: string }).detail;
}

/**
 * Everything under the base path is Keyward's, answered in the contract's shape (methods a Fetch
 * `Request` cannot carry included), wherever the host mounts it.
 */
export function routingSuite(fixture: NodeAdapterFixture): void {
  const { keyward, bearer } = fixture;
  const base = keyward.basePath;

  describe("routing", () => {
    it("answers unknown paths and methods under the base path with contract bodies", async () => {
      const authorization = await bearer(newUserId());
      const unknown = await fetch(new URL(`${base}/x/y/z`, fixture.origin()), {
        headers: { authorization },
      });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ detail: "Not Found", code: "route_not_found" });
      const wrongMethod = await fetch(new URL(`${base}/scopes`, fixture.origin()), {
        method: "DELETE",
        headers: { authorization },
      });
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get("allow")).toBe("GET");
    });

    it("answers a method a Fetch Request cannot carry as it answers any other: 405 with Allow", async () => {
      const trace = await rawExchange(fixture.origin(), requestBytes("TRACE", base));
      expect(expectDetail(trace, 405)).toBe("Method Not Allowed");
      expect(trace.headers.allow).toBe("GET, POST");
      const rotate = await rawExchange(
        fixture.origin(),
        requestBytes("TRACE", `${base}/key_1/rotate`),
      );
      expect(rotate.headers.allow).toBe("POST");
      const unknown = await rawExchange(fixture.origin(), requestBytes("TRACE", `${base}/a/b/c`));
      expect(expectDetail(unknown, 404)).toBe("Not Found");
    });

    it("serves the base path below the prefix it is mounted under, and only there", async () => {
      const origin = await fixture.serve(keyward, { prefix: "/auth" });
      const authorization = await bearer(newUserId());
      const reply = await fetch(new URL(`/auth${base}/scopes?x=1`, origin), {
        headers: { authorization },
      });
      expect(reply.status).toBe(200);
      expect(reply.headers.get("x-ratelimit-limit")).toBe("60");
      const unprefixed = await fetch(new URL(`${base}/scopes`, origin), {
        headers: { authorization },
      });
      expect(unprefixed.status).toBe(404);
    });

    it("answers a well-formed key on a key-management route with 403", async () => {
      const reply = await fetch(new URL(base, fixture.origin()), {
        headers: { authorization: `Bearer ${createKeyFormat().generate()}` },
      });
      expect(reply.status).toBe(403);
    });
  });
}
