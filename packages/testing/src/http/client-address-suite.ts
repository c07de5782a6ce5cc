/**
 * What an adapter must get right about the client's address: it passes `verify` the address its
 * framework resolves — the socket's, unless the host trusts a proxy — so that forged-key floods are
 * limited per real client (`failedLookups`), IP allowlists see the real client, and a client
 * cannot pick its own address with a header. Needs Linux's loopback (all of 127.0.0.0/8): requests come from 127.0.0.2 and 127.0.0.3
 * to a server listening on 127.0.0.1.
 */
import { createKeyward, type Keyward, memoryStore, type VerifyOptions } from "@keyward/core";
import { cachedKeyStore, createKeyFormat, memoryKeyStore } from "@keyward/core/toolkit";
import { afterEach, describe, expect, it } from "vitest";
import { newSlug, profilePath } from "./client.js";
import { demoKeywardConfig } from "./demo-contract.js";
import { rawRequest } from "./raw-request.js";

export interface ClientAddressSuiteOptions {
  /**
   * Serves the demo host (`GET /api/v1/profiles/:slug` behind the adapter's guard, scope
   * `profile:read`) with `keyward`, listening on 127.0.0.1. With `trustLoopbackProxy`, the host
   * trusts a proxy on a loopback address (Express `trust proxy`, Fastify `trustProxy`, srvx
   * `trustProxy`: `"loopback"`), so `X-Forwarded-For` from one counts.
   */
  serve(
    keyward: Keyward,
    options: { trustLoopbackProxy: boolean },
  ): Promise<{ origin: string; close(): Promise<void> }>;
}

const jwtSecret = "client-address-suite-secret-of-at-least-32-bytes";
const forged = () => `Bearer ${createKeyFormat().generate()}`;

/** Keyward on the demo contract, recording the client address every verification is given. */
function recordingKeyward(keyward: Keyward) {
  const addresses: (string | undefined)[] = [];
  const record = (options: VerifyOptions | undefined) => addresses.push(options?.clientIp);
  const recording: Keyward = {
    ...keyward,
    verify: (authorization, options) => {
      record(options);
      return keyward.verify(authorization, options);
    },
    authenticate: (request, options) => {
      record(options);
      return keyward.authenticate(request, options);
    },
  };
  return { recording, addresses };
}

/**
 * Registers the client-address tests with vitest.
 *
 * @example
 * describeClientAddress("express", {
 *   serve: async (keyward, { trustLoopbackProxy }) => {
 *     const app = demoApp(keyward);
 *     if (trustLoopbackProxy) app.set("trust proxy", "loopback");
 *     return listen(app);
 *   },
 * });
 */
export function describeClientAddress(name: string, options: ClientAddressSuiteOptions): void {
  describe(`client address: ${name}`, () => {
    const opened: { close(): Promise<void> }[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((resource) => resource.close()));
    });
    const serve = async (keyward: Keyward, trustLoopbackProxy: boolean) => {
      opened.push(keyward);
      const server = await options.serve(keyward, { trustLoopbackProxy });
      opened.push(server);
      return server.origin;
    };
    const getProfile = (
      origin: string,
      authorization: string,
      from: string,
      headers: Record<string, string> = {},
    ) =>
      rawRequest(origin, {
        method: "GET",
        path: profilePath(newSlug()),
        headers: { authorization, ...headers },
        localAddress: from,
      });

    it("is the socket's address, and X-Forwarded-For is ignored without a trusted proxy", async () => {
      const { recording, addresses } = recordingKeyward(
        createKeyward({ store: memoryStore(), ...demoKeywardConfig(jwtSecret) }),
      );
      const origin = await serve(recording, false);
      await getProfile(origin, forged(), "127.0.0.2", { "x-forwarded-for": "203.0.113.9" });
      await getProfile(origin, forged(), "127.0.0.3");
      expect(addresses).toEqual([
        expect.stringMatching(/^(::ffff:)?127\.0\.0\.2$/),
        expect.stringMatching(/^(::ffff:)?127\.0\.0\.3$/),
      ]);
    });

    it("is the address a trusted proxy forwards, when the host trusts it", async () => {
      const { recording, addresses } = recordingKeyward(
        createKeyward({ store: memoryStore(), ...demoKeywardConfig(jwtSecret) }),
      );
      const origin = await serve(recording, true);
      await getProfile(origin, forged(), "127.0.0.2", { "x-forwarded-for": "203.0.113.9" });
      expect(addresses).toEqual(["203.0.113.9"]);
    });

    /** A key of a fresh user that may be used only from `allowedIps`. */
    const pinnedKey = async (keyward: Keyward, allowedIps: string[]) => {
      const created = await keyward.keys.create({
        ownerId: `user_${crypto.randomUUID()}`,
        accountTier: "free",
        name: "pinned",
        scopes: ["profile:read"],
        tier: "free",
        allowedIps,
      });
      return `Bearer ${created.key}`;
    };

    it("checks a key's IP allowlist against the socket's address; X-Forwarded-For cannot pass it", async () => {
      const keyward = createKeyward({ store: memoryStore(), ...demoKeywardConfig(jwtSecret) });
      const origin = await serve(keyward, false);
      // 127.0.0.4 written as IPv4-mapped IPv6: it matches the IPv4 client, whichever form the
      // framework reports the socket in.
      const key = await pinnedKey(keyward, ["127.0.0.2", "::ffff:127.0.0.4"]);
      expect((await getProfile(origin, key, "127.0.0.2")).status).toBe(200);
      expect((await getProfile(origin, key, "127.0.0.4")).status).toBe(200);
      const refused = await getProfile(origin, key, "127.0.0.3");
      expect(refused.status).toBe(403);
      expect(refused.json).toEqual({ detail: expect.any(String), code: "ip_not_allowed" });
      // The header names an allowed address; without a trusted proxy it counts for nothing.
      const spoofed = await getProfile(origin, key, "127.0.0.3", {
        "x-forwarded-for": "127.0.0.2",
      });
      expect(spoofed.status).toBe(403);
    });

    it("checks it against the address a trusted proxy forwards: IPv4, IPv6 and IPv4-mapped IPv6", async () => {
      const keyward = createKeyward({ store: memoryStore(), ...demoKeywardConfig(jwtSecret) });
      const origin = await serve(keyward, true);
      const key = await pinnedKey(keyward, ["203.0.113.0/24", "2001:db8::/32"]);
      const from = async (forwarded: string) =>
        (await getProfile(origin, key, "127.0.0.2", { "x-forwarded-for": forwarded })).status;
      expect(await from("203.0.113.9")).toBe(200);
      expect(await from("2001:db8:0:1::7")).toBe(200);
      expect(await from("::ffff:203.0.113.9")).toBe(200);
      expect(await from("198.51.100.1")).toBe(403);
      expect(await from("2001:db9::7")).toBe(403);
      expect(await from("::ffff:198.51.100.1")).toBe(403);
      // The proxy's own address is not the client's.
      expect((await getProfile(origin, key, "127.0.0.2")).status).toBe(403);
    });

    it("limits unknown keys per address: 429 for the flooding one, others and cached keys pass", async () => {
      const keyward = createKeyward({
        ...demoKeywardConfig(jwtSecret),
        // A cache in front of the keys, as in front of a database: lookups it cannot answer count.
        store: { ...memoryStore(), keys: cachedKeyStore(memoryKeyStore()) },
        failedLookups: { limit: 3, window: "1h" },
      });
      const origin = await serve(keyward, false);
      const { key } = await keyward.keys.create({
        ownerId: `user_${crypto.randomUUID()}`,
        accountTier: "free",
        name: "behind the same NAT",
        scopes: ["profile:read"],
        tier: "free",
      });
      // Seen once from elsewhere, so the verification cache holds it.
      expect((await getProfile(origin, `Bearer ${key}`, "127.0.0.3")).status).toBe(200);

      const flood: number[] = [];
      for (let i = 0; i < 6; i++)
        flood.push((await getProfile(origin, forged(), "127.0.0.2")).status);
      expect(flood).toEqual([401, 401, 401, 429, 429, 429]);
      const refused = await getProfile(origin, forged(), "127.0.0.2");
      expect(refused.status).toBe(429);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      expect(refused.json).toEqual({ detail: expect.any(String), code: expect.any(String) });

      expect((await getProfile(origin, `Bearer ${key}`, "127.0.0.2")).status).toBe(200);
      expect((await getProfile(origin, forged(), "127.0.0.3")).status).toBe(401);
      // A header cannot move the flooding client to a fresh budget.
      const spoofed = await getProfile(origin, forged(), "127.0.0.2", {
        "x-forwarded-for": "198.51.100.1",
      });
      expect(spoofed.status).toBe(429);
    });
  });
}
