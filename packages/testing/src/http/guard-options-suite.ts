/**
 * What an adapter's guard must do with its options: take only the credentials the route accepts
 * (`accept`) and the keys of its `environment`, ask the host's `session` hook when a request has
 * no bearer token, and refuse at creation a scope or an environment that is not configured (so a
 * typo fails at start, not on every request). The demo contract has environments `live` and `test`.
 */
import { createKeyward, type Keyward, memoryStore, type ScopeRequirement } from "@keyward/core";
import { afterEach, describe, expect, it } from "vitest";
import { mintJwt } from "./client.js";
import { demoKeywardConfig } from "./demo-contract.js";
import { rawRequest } from "./raw-request.js";

/** The options every adapter's guard takes. */
export interface GuardOptions {
  /** A list (all of them), `{ allOf }` or `{ anyOf }`. */
  scopes?: ScopeRequirement;
  accept?: "any" | "api-key" | "session";
  /** Credits each request spends from a key that has credits. */
  cost?: number;
  /** Only keys of this environment pass (`keys.environments`). */
  environment?: string;
}

export interface GuardOptionsSuiteOptions {
  /**
   * Serves `GET /guarded` behind the adapter's guard with `guard`, on 127.0.0.1. An admitted
   * request is answered 200 with `{ "kind": principal.kind, "userId": principal.userId }`.
   */
  serve(keyward: Keyward, guard: GuardOptions): Promise<{ origin: string; close(): Promise<void> }>;
  /**
   * Creates the adapter's guard (without serving it), for the checks made at creation. May return
   * a promise, for frameworks that build guards after an asynchronous registration.
   */
  createGuard(keyward: Keyward, guard: GuardOptions): unknown;
}

const jwtSecret = "guard-options-suite-secret-of-at-least-32-bytes";

/** The host's session stand-in: a `sid` cookie naming the user. */
const cookieSession = (request: Request) => {
  const match = /(?:^|;\s*)sid=([\w-]+)/.exec(request.headers.get("cookie") ?? "");
  return match ? { userId: match[1]!, tier: "pro" } : null;
};

/**
 * Registers the guard-option tests with vitest.
 *
 * @example
 * describeGuardOptions("fetch", {
 *   serve: (keyward, guard) => serveFetch(withApiKey(keyward, { ...guard, route: "/guarded" }, handler)),
 *   createGuard: (keyward, guard) => withApiKey(keyward, { ...guard, route: "/guarded" }, handler),
 * });
 */
export function describeGuardOptions(name: string, options: GuardOptionsSuiteOptions): void {
  describe(`guard options: ${name}`, () => {
    const opened: { close(): Promise<void> }[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((resource) => resource.close()));
    });

    const setup = async (guard: GuardOptions) => {
      const keyward = createKeyward({
        store: memoryStore(),
        ...demoKeywardConfig(jwtSecret),
        session: cookieSession,
        logger: false,
      });
      opened.push(keyward);
      const server = await options.serve(keyward, guard);
      opened.push(server);
      const userId = `user_${crypto.randomUUID()}`;
      const { key } = await keyward.keys.create({
        ownerId: userId,
        accountTier: "free",
        name: "guard options",
        scopes: ["profile:read"],
        tier: "free",
      });
      const token = await mintJwt(jwtSecret, { sub: userId, tier: "free" });
      const keyId = (await keyward.keys.list(userId))[0]!.id;
      const get = async (headers: Record<string, string>) => {
        const reply = await rawRequest(server.origin, { method: "GET", path: "/guarded", headers });
        return { status: reply.status, body: reply.json as Record<string, unknown> };
      };
      return { userId, key, token, get, keyward, keyId };
    };

    it("refuses at creation a scope that is not configured, naming it", async () => {
      const keyward = createKeyward({
        store: memoryStore(),
        ...demoKeywardConfig(jwtSecret),
        logger: false,
      });
      opened.push(keyward);
      const create = async (guard: GuardOptions) => options.createGuard(keyward, guard);
      await expect(create({ scopes: ["profile:raed"] })).rejects.toThrow(
        /"profile:raed" is not a configured scope/,
      );
      await expect(create({ scopes: ["profile:read"] })).resolves.toBeDefined();
      await expect(create({ environment: "staging" })).rejects.toThrow(
        /"staging" is not a configured environment/,
      );
      await expect(create({ environment: "test" })).resolves.toBeDefined();
    });

    it("refuses at creation a malformed scope requirement, naming the problem", async () => {
      const keyward = createKeyward({
        store: memoryStore(),
        ...demoKeywardConfig(jwtSecret),
        logger: false,
      });
      opened.push(keyward);
      const create = async (scopes: unknown) =>
        options.createGuard(keyward, { scopes: scopes as ScopeRequirement });
      await expect(create({ anyOf: [] })).rejects.toThrow(
        /`scopes.anyOf` must name at least one scope/,
      );
      await expect(create({ allOf: "profile:read" })).rejects.toThrow(
        /`scopes.allOf` must be a list of scopes/,
      );
      await expect(create({ oneOf: ["profile:read"] })).rejects.toThrow(
        /exactly one of `allOf` or `anyOf`, got `oneOf`/,
      );
      await expect(create({ anyOf: ["profile:read"], allOf: ["org:read"] })).rejects.toThrow(
        /exactly one of `allOf` or `anyOf`/,
      );
      await expect(create({ anyOf: ["profile:raed"] })).rejects.toThrow(
        /"profile:raed" is not a configured scope/,
      );
      await expect(create({ anyOf: ["profile:read", "org:read"] })).resolves.toBeDefined();
      await expect(create({ allOf: ["profile:read"] })).resolves.toBeDefined();
    });

    it("takes a key holding one scope of `anyOf`, and only one holding every scope of `allOf`", async () => {
      // The key holds profile:read only.
      const anyOf = await setup({ scopes: { anyOf: ["profile:write", "profile:read"] } });
      expect(await anyOf.get({ authorization: `Bearer ${anyOf.key}` })).toEqual({
        status: 200,
        body: { kind: "key", userId: anyOf.userId },
      });
      const noneOf = await setup({ scopes: { anyOf: ["profile:write", "org:read"] } });
      expect(await noneOf.get({ authorization: `Bearer ${noneOf.key}` })).toEqual({
        status: 403,
        body: {
          detail: "API key lacks the required scope: one of profile:write, org:read",
          code: "insufficient_scope",
        },
      });
      // A session holds every scope, whatever the requirement.
      expect((await noneOf.get({ authorization: `Bearer ${noneOf.token}` })).status).toBe(200);
      const allOf = await setup({ scopes: { allOf: ["profile:read", "org:read"] } });
      expect(await allOf.get({ authorization: `Bearer ${allOf.key}` })).toEqual({
        status: 403,
        body: { detail: "API key lacks the required scope: org:read", code: "insufficient_scope" },
      });
      const allHeld = await setup({ scopes: { allOf: ["profile:read"] } });
      expect((await allHeld.get({ authorization: `Bearer ${allHeld.key}` })).status).toBe(200);
    });

    it("takes keys of its `environment` only: a key of another gets 401, sessions pass", async () => {
      const { userId, key, token, get, keyward } = await setup({
        scopes: ["profile:read"],
        environment: "test",
      });
      const testKey = await keyward.keys.create({
        ownerId: userId,
        accountTier: "free",
        name: "test environment",
        scopes: ["profile:read"],
        tier: "free",
        environment: "test",
      });
      expect(await get({ authorization: `Bearer ${testKey.key}` })).toEqual({
        status: 200,
        body: { kind: "key", userId },
      });
      expect(await get({ authorization: `Bearer ${key}` })).toEqual({
        status: 401,
        body: {
          detail: "API key is for the live environment; this endpoint takes test keys",
          code: "invalid_api_key",
        },
      });
      expect((await get({ authorization: `Bearer ${token}` })).status).toBe(200);
    });

    it("takes an API key, a session token and the host's cookie by default", async () => {
      const { userId, key, token, get } = await setup({ scopes: ["profile:read"] });
      expect(await get({ authorization: `Bearer ${key}` })).toEqual({
        status: 200,
        body: { kind: "key", userId },
      });
      expect(await get({ authorization: `Bearer ${token}` })).toEqual({
        status: 200,
        body: { kind: "user", userId },
      });
      expect(await get({ cookie: "sid=cookie-user" })).toEqual({
        status: 200,
        body: { kind: "user", userId: "cookie-user" },
      });
      expect((await get({})).status).toBe(401);
    });

    it('takes API keys only with accept: "api-key": sessions get 401', async () => {
      const { key, token, get } = await setup({ scopes: ["profile:read"], accept: "api-key" });
      expect((await get({ authorization: `Bearer ${key}` })).status).toBe(200);
      const sessions: Record<string, string>[] = [
        { authorization: `Bearer ${token}` },
        { cookie: "sid=cookie-user" },
      ];
      for (const headers of sessions) {
        const refused = await get(headers);
        expect(refused.status).toBe(401);
        expect(refused.body.detail).toEqual(expect.any(String));
      }
    });

    it("spends `cost` credits per request from a key with credits", async () => {
      const { key, get, keyward, keyId } = await setup({ scopes: ["profile:read"], cost: 3 });
      await keyward.keys.setLimits(keyId, { credits: { remaining: 7 } });
      expect((await get({ authorization: `Bearer ${key}` })).status).toBe(200);
      expect((await get({ authorization: `Bearer ${key}` })).status).toBe(200);
      // 1 credit left, 3 needed.
      expect(await get({ authorization: `Bearer ${key}` })).toEqual({
        status: 429,
        body: { detail: "API key has no credits left", code: "credits_exhausted" },
      });
    });

    it('takes sessions only with accept: "session": API keys get 403', async () => {
      const { key, token, get } = await setup({ accept: "session" });
      expect(await get({ authorization: `Bearer ${key}` })).toMatchObject({ status: 403 });
      expect((await get({ authorization: `Bearer ${token}` })).status).toBe(200);
      expect((await get({ cookie: "sid=cookie-user" })).status).toBe(200);
    });
  });
}
