/** IP allowlists end to end in core: create and update through `keys`, refusal through `verify`. */
import { describe, expect, it } from "vitest";
import { createKeyward } from "../../keyward/create-keyward.js";
import type { KeywardLogger } from "../../logging/logger.js";
import { memoryStore } from "../../memory/memory-store.js";
import { lifecycle } from "./index.js";

const scopes = { "profile:read": "Read" };
const tiers = { free: { rateLimit: { limit: 10, window: "1m" } } };

function setup() {
  const store = memoryStore();
  const warnings: string[] = [];
  const logger: KeywardLogger = { error: () => {}, warn: (message) => warnings.push(message) };
  const keyward = createKeyward({
    store,
    scopes,
    tiers,
    jwt: false,
    logger,
    features: [lifecycle()],
  });
  const create = (allowedIps?: unknown) =>
    keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
      ...(allowedIps === undefined ? {} : { allowedIps: allowedIps as string[] }),
    });
  const verifyFrom = (key: string, clientIp: string | undefined) =>
    keyward.verify(`Bearer ${key}`, { route: "GET /x", clientIp });
  return { keyward, store, create, verifyFrom, warnings };
}

const refusal = (result: Awaited<ReturnType<ReturnType<typeof setup>["verifyFrom"]>>) =>
  result.ok ? undefined : { status: result.error.status, code: result.error.code };

describe("IP allowlists: verify", () => {
  it("admits addresses inside the list and refuses others with 403 ip_not_allowed", async () => {
    const { create, verifyFrom } = setup();
    const { key, allowedIps } = await create(["203.0.113.0/24", "2001:DB8::/32"]);
    expect(allowedIps).toEqual(["203.0.113.0/24", "2001:db8::/32"]);
    expect((await verifyFrom(key, "203.0.113.9")).ok).toBe(true);
    expect((await verifyFrom(key, "2001:db8:5::1")).ok).toBe(true);
    // A dual-stack socket's IPv4 client, as Node reports it.
    expect((await verifyFrom(key, "::ffff:203.0.113.9")).ok).toBe(true);
    const outside = await verifyFrom(key, "198.51.100.1");
    expect(refusal(outside)).toEqual({ status: 403, code: "ip_not_allowed" });
    expect(!outside.ok && outside.error.detail).toBe(
      "This API key may not be used from this client address",
    );
    expect(refusal(await verifyFrom(key, "2001:db9::1"))).toEqual({
      status: 403,
      code: "ip_not_allowed",
    });
  });

  it("refuses a key with an allowlist when no client address is given, and says so once in the log", async () => {
    const { create, verifyFrom, warnings } = setup();
    const { key } = await create(["203.0.113.7"]);
    const result = await verifyFrom(key, undefined);
    expect(refusal(result)).toEqual({ status: 403, code: "ip_not_allowed" });
    expect(!result.ok && result.error.detail).toMatch(/client's address is unknown/);
    await verifyFrom(key, "");
    expect(warnings.filter((warning) => warning.includes("no `clientIp`"))).toHaveLength(1);
  });

  it("refuses before the rate limiter: requests from outside spend nothing of the key's limit", async () => {
    const { create, verifyFrom } = setup();
    const { key } = await create(["203.0.113.7"]);
    for (let i = 0; i < 5; i++) await verifyFrom(key, "198.51.100.1");
    const first = await verifyFrom(key, "203.0.113.7");
    expect(first.ok && first.rateLimit.remaining).toBe(9);
  });

  it("checks nothing for keys without an allowlist, with or without a client address", async () => {
    const { create, verifyFrom } = setup();
    const { key, ...record } = await create();
    expect("allowedIps" in record).toBe(false);
    expect((await verifyFrom(key, undefined)).ok).toBe(true);
    expect((await verifyFrom(key, "198.51.100.1")).ok).toBe(true);
  });

  it("refuses a revoked, expired or disabled key as before, whatever the address", async () => {
    const { keyward, create, verifyFrom } = setup();
    const { key, id } = await create(["203.0.113.7"]);
    await keyward.keys.update("alice", id, { enabled: false });
    const result = await verifyFrom(key, "198.51.100.1");
    expect(!result.ok && result.error.detail).toBe("API key is disabled");
  });
});

describe("IP allowlists: create and update", () => {
  it("reports every bad entry at once on create (422), and stores nothing", async () => {
    const { create, store } = setup();
    const error = await create([
      "10.0.0.1/8",
      "fe80::1%eth0",
      "203.0.113.7",
      7,
      "::ffff:203.0.113.7",
    ]).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      code: "validation_failed",
      detail: [
        {
          loc: ["body", "allowedIps", 0],
          msg: "Value error, '10.0.0.1/8' has bits set past its prefix length; did you mean 10.0.0.0/8?",
          type: "value_error",
        },
        {
          loc: ["body", "allowedIps", 1],
          msg: expect.stringMatching(/zone id/),
          type: "value_error",
        },
        {
          loc: ["body", "allowedIps", 3],
          msg: "Input should be a valid string",
          type: "string_type",
        },
        {
          loc: ["body", "allowedIps", 4],
          msg: "Value error, duplicate entry '::ffff:203.0.113.7' (203.0.113.7)",
          type: "value_error",
        },
      ],
    });
    expect(store.keys.snapshot()).toEqual([]);
  });

  it.each([
    [[], "too_short"],
    ["203.0.113.7", "list_type"],
    [Array.from({ length: 101 }, (_, i) => `10.0.${i >> 8}.${i & 255}`), "too_long"],
  ])("refuses allowedIps %j on create with %s", async (value, type) => {
    const { create } = setup();
    await expect(create(value)).rejects.toMatchObject({
      detail: [{ loc: ["body", "allowedIps"], type }],
    });
  });

  it("accepts the most entries allowed", async () => {
    const { create } = setup();
    const entries = Array.from({ length: 100 }, (_, i) => `10.0.0.${i}`);
    expect((await create(entries)).allowedIps).toHaveLength(100);
  });

  it("sets, replaces and removes an allowlist with keys.update, effective on the next request", async () => {
    const { keyward, create, verifyFrom } = setup();
    const { key, id } = await create();
    const set = await keyward.keys.update("alice", id, { allowedIps: ["::ffff:198.51.100.0/120"] });
    expect(set.allowedIps).toEqual(["198.51.100.0/24"]);
    expect((await verifyFrom(key, "198.51.100.20")).ok).toBe(true);
    expect(refusal(await verifyFrom(key, "203.0.113.7"))?.code).toBe("ip_not_allowed");
    const replaced = await keyward.keys.update("alice", id, { allowedIps: ["203.0.113.7"] });
    expect(replaced.allowedIps).toEqual(["203.0.113.7"]);
    expect((await verifyFrom(key, "203.0.113.7")).ok).toBe(true);
    const removed = await keyward.keys.update("alice", id, { allowedIps: null });
    expect("allowedIps" in removed).toBe(false);
    expect((await verifyFrom(key, "192.0.2.1")).ok).toBe(true);
  });

  it("refuses a bad update with every problem (422) and leaves the allowlist as it was", async () => {
    const { keyward, create, verifyFrom } = setup();
    const { key, id } = await create(["203.0.113.7"]);
    await expect(
      keyward.keys.update("alice", id, { name: "", allowedIps: ["nope", "1.2.3.4/33"] }),
    ).rejects.toMatchObject({
      code: "validation_failed",
      detail: [
        { loc: ["body", "allowedIps", 0] },
        { loc: ["body", "allowedIps", 1] },
        { loc: ["body", "name"] },
      ],
    });
    await expect(keyward.keys.update("alice", id, { allowedIps: [] })).rejects.toMatchObject({
      detail: [
        { loc: ["body", "allowedIps"], type: "too_short", msg: expect.stringMatching(/send null/) },
      ],
    });
    expect((await keyward.keys.list("alice"))[0]!.allowedIps).toEqual(["203.0.113.7"]);
    expect(refusal(await verifyFrom(key, "198.51.100.1"))?.code).toBe("ip_not_allowed");
  });
});

describe("IP allowlists without lifecycle()", () => {
  it("refuses allowedIps on create (422) rather than make a key usable from anywhere", async () => {
    const store = memoryStore();
    const keyward = createKeyward({ store, scopes, tiers, jwt: false, logger: false });
    const created = keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
      allowedIps: ["203.0.113.7"],
    });
    await expect(created).rejects.toMatchObject({
      status: 422,
      detail: [
        {
          loc: ["body", "allowedIps"],
          msg: "Extra inputs are not permitted: IP allowlists need lifecycle() in the server's features",
          type: "extra_forbidden",
        },
      ],
    });
    expect(store.snapshot().keys).toEqual([]);
  });

  it("refuses a key stored with an allowlist from every address, and says why once", async () => {
    const { store, create } = setup();
    const key = await create(["203.0.113.7"]);
    const warnings: string[] = [];
    const other = createKeyward({
      store,
      scopes,
      tiers,
      jwt: false,
      logger: { error: () => {}, warn: (message) => warnings.push(message) },
    });
    for (const clientIp of ["203.0.113.7", "198.51.100.1"]) {
      const result = await other.verify(`Bearer ${key.key}`, { route: "GET /x", clientIp });
      expect(refusal(result)).toEqual({ status: 403, code: "ip_not_allowed" });
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("does not list lifecycle()");
  });
});
