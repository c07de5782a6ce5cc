import { describe, expect, it } from "vitest";
import type { SuiteClient } from "./client.js";
import { allowedMethods, expectErrorDetail, expectStatus } from "./expectations.js";

/** Paths under the base path that no endpoint serves (404), or not with this method (405). */
export function routingSuite(client: SuiteClient, options: { keyUpdates?: boolean } = {}): void {
  const someId = () => `key_${crypto.randomUUID().replaceAll("-", "")}`;

  describe("routing under the base path", () => {
    it.each([
      ["GET", () => "/x/y/z"],
      ["GET", () => `/${someId()}/unknown`],
      ["POST", () => `/${someId()}/rotate/again`],
    ])("404 for %s on an unknown path", async (method, suffix) => {
      const user = await client.newUser();
      expectErrorDetail(
        await client.send(method, `${client.basePath}${suffix()}`, { token: user.token }),
        404,
      );
    });

    it.each([
      {
        method: "PUT",
        path: () => "",
        allowed: ["GET", "POST"],
        refused: ["PUT", "PATCH", "DELETE"],
      },
      {
        method: "DELETE",
        path: () => "",
        allowed: ["GET", "POST"],
        refused: ["PUT", "PATCH", "DELETE"],
      },
      // With `keyUpdates`, a key also takes PATCH; the contract's key path takes DELETE only.
      options.keyUpdates
        ? {
            method: "PUT",
            path: () => `/${someId()}`,
            allowed: ["DELETE", "PATCH"],
            refused: ["GET", "POST", "PUT"],
          }
        : {
            method: "PATCH",
            path: () => `/${someId()}`,
            allowed: ["DELETE"],
            refused: ["GET", "POST", "PUT", "PATCH"],
          },
      {
        method: "GET",
        path: () => `/${someId()}/rotate`,
        allowed: ["POST"],
        refused: ["GET", "PUT", "DELETE"],
      },
      {
        method: "POST",
        path: () => `/${someId()}/usage`,
        allowed: ["GET"],
        refused: ["POST", "PUT", "DELETE"],
      },
    ])(
      "405 with Allow for $method on a path that has other methods",
      async ({ method, path, allowed, refused }) => {
        const user = await client.newUser();
        const reply = await client.send(method, `${client.basePath}${path()}`, {
          token: user.token,
        });
        expectErrorDetail(reply, 405);
        const allow = allowedMethods(reply);
        for (const expected of allowed) expect(allow).toContain(expected);
        for (const unexpected of refused) expect(allow).not.toContain(unexpected);
      },
    );

    it.each([
      { path: () => "", methods: ["GET", "POST"] },
      { path: () => "/scopes", methods: ["GET"] },
      { path: () => `/${someId()}`, methods: ["DELETE"] },
      { path: () => `/${someId()}/rotate`, methods: ["POST"] },
    ])(
      "answers a CORS preflight (OPTIONS, no credentials) on $methods with 204 and Allow",
      async ({ path, methods }) => {
        const reply = await client.send("OPTIONS", `${client.basePath}${path()}`);
        expectStatus(reply, 204);
        const allow = allowedMethods(reply);
        for (const method of [...methods, "OPTIONS"]) expect(allow).toContain(method);
      },
    );

    it("answers OPTIONS on a path under the base path that no endpoint serves with 404", async () => {
      expectErrorDetail(await client.send("OPTIONS", `${client.basePath}/nope/nope/nope`), 404);
    });
  });
}
