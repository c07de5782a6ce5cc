import { describe, expect, it } from "vitest";
import { newUserId } from "../http/client.js";
import { rawRequest } from "../http/raw-request.js";
import { createBody, type NodeAdapterFixture } from "./fixture.js";

const errorBody = { detail: expect.any(String), code: expect.any(String) };

/**
 * Request bodies on the key-management routes: read as JSON by Keyward, whatever parser the host
 * keeps for its own routes, within Keyward's limit, and never read at all for a refused request.
 */
export function bodiesSuite(fixture: NodeAdapterFixture): void {
  const { keyward, post, bearer } = fixture;

  describe("request bodies", () => {
    it("creates a key on a host that keeps its JSON parser, and the host's routes still parse", async () => {
      const created = await post(fixture.origin(), JSON.stringify(createBody));
      expect(created.status).toBe(201);
      expect(await created.json()).toMatchObject({
        name: "adapter test",
        scopes: ["profile:read"],
      });
      const user = newUserId();
      const put = await fetch(new URL("/api/v1/profiles/alice", fixture.origin()), {
        method: "PUT",
        headers: { authorization: await bearer(user), "content-type": "application/json" },
        body: JSON.stringify({ displayName: "Alice" }),
      });
      expect(put.status).toBe(200);
      expect(await put.json()).toEqual({ slug: "alice", updatedBy: user });
    });

    it("reads the body as JSON whatever its Content-Type says", async () => {
      const authorization = await bearer(newUserId());
      const send = (body: string) =>
        fetch(new URL(keyward.basePath, fixture.origin()), {
          method: "POST",
          headers: { authorization, "content-type": "text/plain" },
          body,
        });
      expect((await send(JSON.stringify(createBody))).status).toBe(201);
      const malformed = await send("name=x");
      expect(malformed.status).toBe(400);
      expect(await malformed.json()).toEqual(errorBody);
    });

    it("413 with the contract body for a declared Content-Length over the limit", async () => {
      const reply = await post(
        fixture.origin(),
        JSON.stringify({ ...createBody, padding: "p".repeat(70_000) }),
      );
      expect(reply.status).toBe(413);
      expect(await reply.json()).toEqual(errorBody);
    });

    it("413 for a chunked body that grows past the limit, and the server keeps serving", async () => {
      const chunk = `"${"p".repeat(8 * 1024)}",`;
      const reply = await rawRequest(fixture.origin(), {
        method: "POST",
        path: keyward.basePath,
        headers: { authorization: await bearer(newUserId()), "content-type": "application/json" },
        body: ["[", ...Array.from({ length: 10 }, () => chunk), '""]'],
      });
      expect(reply.status).toBe(413);
      expect(reply.json).toEqual(errorBody);
      expect((await post(fixture.origin(), JSON.stringify(createBody))).status).toBe(201);
    });

    it("follows the limit configured on Keyward", async () => {
      const small = fixture.suiteKeyward({ http: { bodyLimit: 1024 } });
      const origin = await fixture.serve(small);
      const padded = JSON.stringify({ ...createBody, padding: "p".repeat(2048) });
      expect((await post(origin, padded)).status).toBe(413);
      expect((await post(origin, JSON.stringify(createBody))).status).toBe(201);
    });

    it("does not read the body of a request refused before it is needed", async () => {
      const large = JSON.stringify({ ...createBody, padding: "p".repeat(1e6) });
      expect((await post(fixture.origin(), large, "Bearer nope")).status).toBe(401);
      expect((await post(fixture.origin(), JSON.stringify(createBody))).status).toBe(201);
    });
  });
}
