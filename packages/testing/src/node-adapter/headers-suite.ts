import { describe, expect, it } from "vitest";
import { newUserId } from "../http/client.js";
import { rawRequest } from "../http/raw-request.js";
import type { NodeAdapterFixture } from "./fixture.js";

/**
 * Headers sent on separate lines, which a Fetch client cannot send: Node joins most of them, so the
 * adapter must find a doubled Authorization itself, and leave other repeated headers alone.
 */
export function headersSuite(fixture: NodeAdapterFixture): void {
  const { keyward, bearer } = fixture;

  describe("repeated headers", () => {
    it("refuses two Authorization lines on the key-management routes and on guarded routes", async () => {
      const token = await bearer(newUserId());
      for (const path of [keyward.basePath, "/api/v1/profiles/alice"]) {
        const reply = await rawRequest(fixture.origin(), {
          method: "GET",
          path,
          headers: { authorization: [token, token] },
        });
        expect(reply.status, path).toBe(401);
        expect(reply.json).toEqual({ detail: expect.any(String), code: expect.any(String) });
      }
    });

    it("serves a request whose other headers repeat", async () => {
      const reply = await rawRequest(fixture.origin(), {
        method: "GET",
        path: keyward.basePath,
        headers: {
          authorization: await bearer(newUserId()),
          accept: ["application/json", "text/plain"],
          cookie: ["a=1", "b=2"],
        },
      });
      expect(reply.status).toBe(200);
      expect(reply.json).toEqual({ data: [] });
    });
  });
}
