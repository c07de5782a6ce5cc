import { createKeyFormat } from "@keyward/core/toolkit";
import { describe, expect, it } from "vitest";
import {
  mintJwt,
  newSlug,
  newUserId,
  type Reply,
  type SuiteClient,
  type TestUser,
  unsecuredJwt,
} from "./client.js";
import {
  type BearerChallenge,
  expectBearerChallenge,
  expectErrorDetail,
  expectJson,
  expectStatus,
} from "./expectations.js";
import type { HttpSuiteOptions } from "./options.js";

interface RefusedCredential {
  name: string;
  /** The `Authorization` header to send, or null to send none. */
  authorization(user: TestUser): Promise<string | null>;
  /** The `WWW-Authenticate` challenge its 401s carry (RFC 6750 §3). */
  challenge: BearerChallenge;
  /**
   * A token with the key prefix is an API key by definition (the prefix is what tells a key from a
   * session token), so key management refuses it with 403, as it does every API key, without
   * asking whether it exists.
   */
  keyShaped?: true;
}

/**
 * Who may call: a valid Bearer JWT on every endpoint, a valid API key on host routes only, and
 * nothing else anywhere.
 */
export function authenticationSuite(client: SuiteClient, options: HttpSuiteOptions): void {
  const contract = client.contract;
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  const wellFormedUnknownKey = () => createKeyFormat().generate();

  const refused: RefusedCredential[] = [
    { name: "no Authorization header", challenge: "no-error", authorization: async () => null },
    {
      name: "a Basic credential",
      challenge: "no-error",
      authorization: async () => `Basic ${btoa("user:password")}`,
    },
    { name: "Bearer without a token", challenge: "any", authorization: async () => "Bearer" },
    {
      name: "a bare token without a scheme",
      challenge: "any",
      authorization: async (user) => user.token,
    },
    {
      name: "two Bearer tokens",
      challenge: "any",
      authorization: async (user) => `Bearer ${user.token} ${user.token}`,
    },
    {
      name: "a garbage token",
      challenge: "invalid_token",
      authorization: async () => "Bearer not-a-jwt",
    },
    {
      name: "a JWT-looking garbage token",
      challenge: "invalid_token",
      authorization: async () => "Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2ln",
    },
    {
      name: "a JWT signed with another secret",
      challenge: "invalid_token",
      authorization: async (user) =>
        `Bearer ${await mintJwt(`${options.jwtSecret}-but-not-quite-the-same`, { sub: user.id, tier: contract.lowestTier.name })}`,
    },
    {
      name: "a JWT with its signature stripped",
      challenge: "invalid_token",
      authorization: async (user) =>
        `Bearer ${user.token.slice(0, user.token.lastIndexOf(".") + 1)}`,
    },
    {
      name: "an alg: none JWT",
      challenge: "invalid_token",
      authorization: async (user) =>
        `Bearer ${unsecuredJwt({ sub: user.id, tier: contract.lowestTier.name })}`,
    },
    {
      name: "an expired JWT",
      challenge: "invalid_token",
      authorization: async (user) =>
        `Bearer ${await mintJwt(options.jwtSecret, { sub: user.id, tier: contract.lowestTier.name }, { issuedAt: nowSeconds() - 1200, expiresAt: nowSeconds() - 600 })}`,
    },
    {
      name: "a JWT without a sub",
      challenge: "invalid_token",
      authorization: async () =>
        `Bearer ${await mintJwt(options.jwtSecret, { tier: contract.lowestTier.name })}`,
    },
    {
      name: "a well-formed sk_live_ key that does not exist",
      challenge: "invalid_token",
      keyShaped: true,
      authorization: async () => `Bearer ${wellFormedUnknownKey()}`,
    },
    {
      name: "a malformed sk_live_ key",
      challenge: "invalid_token",
      keyShaped: true,
      authorization: async () => "Bearer sk_live_tooShort",
    },
    {
      name: "an sk_live_ key with a wrong checksum",
      challenge: "invalid_token",
      keyShaped: true,
      authorization: async () => {
        const key = wellFormedUnknownKey();
        return `Bearer ${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;
      },
    },
  ];

  describe("authentication", () => {
    it.each(refused)(
      "401 for $name on host routes; refused by key management too",
      async (credential) => {
        const user = await client.newUser();
        const authorization = await credential.authorization(user);
        const init = authorization === null ? {} : { authorization };
        const refused = (reply: Reply, status: number) => {
          expectErrorDetail(reply, status);
          if (status === 401) expectBearerChallenge(reply, credential.challenge);
        };
        refused(await client.send("GET", contract.routePath(newSlug()), init), 401);
        refused(await client.send("PUT", contract.routePath(newSlug()), init), 401);
        const managementStatus = credential.keyShaped ? 403 : 401;
        refused(await client.send("GET", client.basePath, init), managementStatus);
        refused(
          await client.send("POST", client.basePath, { ...init, json: client.validCreateBody() }),
          managementStatus,
        );
        // Nothing was created on the user's behalf.
        expect((await client.listKeys(user.token)).body).toEqual({ data: [] });
      },
    );

    it("401 for a key secret the user revoked, on host routes", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      expectStatus(await client.revokeKey(user.token, key.id), 200);
      const reply = await client.getProfile(key.key, newSlug());
      expectErrorDetail(reply, 401);
      expectBearerChallenge(reply, "invalid_token");
    });

    it("accepts the Bearer scheme in any case", async () => {
      const user = await client.newUser();
      expectJson(
        await client.send("GET", client.basePath, { authorization: `bearer ${user.token}` }),
        200,
      );
      expectJson(
        await client.send("GET", client.basePath, { authorization: `BEARER ${user.token}` }),
        200,
      );
    });

    it("identifies the user by the JWT's sub alone", async () => {
      const id = newUserId();
      const first = await mintJwt(options.jwtSecret, { sub: id, tier: contract.lowestTier.name });
      const user = { id, token: first, tier: contract.lowestTier.name };
      const key = await client.createKeyFor(user);
      // A second token for the same sub, minted later, sees the same keys.
      const second = await mintJwt(
        options.jwtSecret,
        { sub: id, tier: contract.lowestTier.name },
        { issuedAt: nowSeconds() - 5 },
      );
      const listed = await client.listKeys(second);
      expectJson(listed, 200);
      expect(listed.body.data.map((record) => record.id)).toEqual([key.id]);
    });

    it("403 for an API key on every key-management endpoint, changing nothing", async () => {
      const user = await client.newUser(contract.highestTier.name);
      const key = await client.createKeyFor(user, {
        scopes: [contract.readScope, contract.writeScope, ...contract.unrelatedScopes],
        tier: contract.highestTier.name,
      });
      const base = client.basePath;
      const calls: [string, string, unknown?][] = [
        ["POST", base, client.validCreateBody()],
        ["GET", base],
        ["GET", `${base}/scopes`],
        ["POST", `${base}/${key.id}/rotate`],
        ["GET", `${base}/${key.id}/usage`],
        ["DELETE", `${base}/${key.id}`],
      ];
      for (const [method, path, json] of calls) {
        const reply = await client.send(method, path, {
          token: key.key,
          ...(json === undefined ? {} : { json }),
        });
        expect(reply.status, `${method} ${path} with an API key`).toBe(403);
        expectErrorDetail(reply, 403);
      }
      // The key was neither rotated nor revoked, and no key was created with it.
      expectStatus(await client.getProfile(key.key, newSlug()), 200);
      const listed = await client.listKeys(user.token);
      expect(listed.body.data).toHaveLength(1);
      expect(listed.body.data[0]).toMatchObject({ id: key.id, status: "active", hint: key.hint });
    });
  });
}
