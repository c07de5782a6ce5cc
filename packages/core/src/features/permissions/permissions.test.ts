import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import type { KeywardFeature } from "../../feature-interface/feature.js";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import type { KeywardStore } from "../../storage/index.js";
import { lifecycle } from "../lifecycle/index.js";
import { permissions } from "./index.js";

const secret = "permissions-test-secret-of-at-least-32-bytes";
const base = "http://keyward.test/api/v1/api-keys";

const setup = (
  features: readonly KeywardFeature<string, unknown>[] = [lifecycle(), permissions()],
  store: KeywardStore = memoryStore(),
) => {
  const warnings: string[] = [];
  const keyward = createKeyward({
    store,
    scopes: { "profile:read": "Read", "profile:write": "Write" },
    tiers: { free: { rateLimit: { limit: 1000, window: "1m" } } },
    jwt: { secret },
    logger: { error: () => {}, warn: (message: string) => warnings.push(message) },
    features,
  });
  const session = () =>
    new SignJWT({ tier: "free" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(new TextEncoder().encode(secret));
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await keyward.handle(
      new Request(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${await session()}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const create = (fields: Record<string, unknown>) =>
    call("POST", "", { name: "k", scopes: ["profile:read"], tier: "free", ...fields });
  const verifyFor = (key: string, resource?: Record<string, string>) =>
    keyward.verify(`Bearer ${key}`, { scopes: ["profile:read"], route: "GET /p/:slug", resource });
  return { keyward, call, create, verifyFor, warnings, store };
};

describe("permissions(): resource-limited keys", () => {
  it("creates a key limited to resources, lists it with them, and verify keeps it to them", async () => {
    const { create, call, verifyFor } = await setup();
    const created = await create({ resources: { profile: ["alice", "bob"] } });
    expect(created.status).toBe(201);
    expect(created.body.resources).toEqual({ profile: ["alice", "bob"] });
    const listed = await call("GET", "");
    expect((listed.body.data as Record<string, unknown>[])[0]!.resources).toEqual({
      profile: ["alice", "bob"],
    });
    const key = created.body.key as string;
    expect((await verifyFor(key, { profile: "alice" })).ok).toBe(true);
    expect((await verifyFor(key, { profile: "bob" })).ok).toBe(true);
    const refused = await verifyFor(key, { profile: "carol" });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.status).toBe(403);
    expect(refused.error.code).toBe("resource_not_allowed");
    expect(refused.error.detail).toBe('This API key may not be used for profile "carol"');
    // A kind the key does not limit, and a route that names no resource, are not limited.
    expect((await verifyFor(key, { project: "x" })).ok).toBe(true);
    expect((await verifyFor(key)).ok).toBe(true);
    // Case matters: an id is compared exactly.
    expect((await verifyFor(key, { profile: "Alice" })).ok).toBe(false);
  });

  it("leaves a key without resources unlimited, and shows it without the field", async () => {
    const { create, verifyFor } = await setup();
    const created = await create({});
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty("resources");
    expect((await verifyFor(created.body.key as string, { profile: "anyone" })).ok).toBe(true);
  });

  it("an empty list limits the key to no resource of that kind", async () => {
    const { create, verifyFor } = await setup();
    const created = await create({ resources: { profile: [] } });
    expect(created.status).toBe(201);
    expect((await verifyFor(created.body.key as string, { profile: "alice" })).ok).toBe(false);
  });

  it.each([
    [[], ["body", "resources"], "dict_type"],
    ["alice", ["body", "resources"], "dict_type"],
    [null, ["body", "resources"], "dict_type"],
    [{}, ["body", "resources"], "too_short"],
    [{ profile: "alice" }, ["body", "resources", "profile"], "list_type"],
    [{ "1profile": ["a"] }, ["body", "resources", "1profile"], "value_error"],
    [{ profile: [1] }, ["body", "resources", "profile", 0], "string_type"],
    [{ profile: [""] }, ["body", "resources", "profile", 0], "value_error"],
    [{ profile: ["a\u0000b"] }, ["body", "resources", "profile", 0], "value_error"],
    [{ profile: ["x".repeat(257)] }, ["body", "resources", "profile", 0], "value_error"],
    [{ profile: ["a", "a"] }, ["body", "resources", "profile", 1], "value_error"],
    [
      { profile: Array.from({ length: 101 }, (_, i) => `p${i}`) },
      ["body", "resources", "profile"],
      "too_long",
    ],
    [
      Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`kind${i}`, []])),
      ["body", "resources"],
      "too_long",
    ],
  ])(
    "refuses resources %j on create with 422 at %j (%s), creating nothing",
    async (resources, loc, type) => {
      const { create, call } = await setup();
      const refused = await create({ resources });
      expect(refused.status).toBe(422);
      expect(refused.body.detail).toEqual([expect.objectContaining({ loc, type })]);
      expect((await call("GET", "")).body.data).toEqual([]);
    },
  );

  it("narrows resources by PATCH, and refuses a widening with 422 naming it, changing nothing", async () => {
    const { create, call, verifyFor } = await setup();
    const created = await create({ resources: { profile: ["alice", "bob"] } });
    const id = created.body.id as string;
    const key = created.body.key as string;
    const widen = [
      [{ profile: ["alice", "carol"] }, ["body", "resources", "profile", 1]],
      [{ project: ["x"] }, ["body", "resources", "profile"]],
    ] as const;
    for (const [resources, loc] of widen) {
      const refused = await call("PATCH", `/${id}`, { resources });
      expect(refused.status).toBe(422);
      expect(refused.body.detail).toEqual([
        expect.objectContaining({
          loc,
          type: "value_error",
          msg: expect.stringContaining("narrowed"),
        }),
      ]);
    }
    // null would lift every limit: not a narrowing either.
    const lifted = await call("PATCH", `/${id}`, { resources: null });
    expect(lifted.status).toBe(422);
    expect(lifted.body.detail).toEqual([
      expect.objectContaining({
        loc: ["body", "resources"],
        type: "dict_type",
        msg: "Input should be a valid dictionary: null would lift every limit, and resources can only be narrowed",
      }),
    ]);
    expect((await verifyFor(key, { profile: "bob" })).ok).toBe(true);
    const narrowed = await call("PATCH", `/${id}`, {
      resources: { profile: ["alice"], project: ["x"] },
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.resources).toEqual({ profile: ["alice"], project: ["x"] });
    expect((await verifyFor(key, { profile: "bob" })).ok).toBe(false);
    expect((await verifyFor(key, { profile: "alice", project: "x" })).ok).toBe(true);
    expect((await verifyFor(key, { profile: "alice", project: "y" })).ok).toBe(false);
  });

  it("limits a key that had no resources by PATCH (from every resource to some)", async () => {
    const { create, call, verifyFor } = await setup();
    // null on create is not "every resource": that is leaving the field out, as the message says.
    const nullOnCreate = await create({ resources: null });
    expect(nullOnCreate.status).toBe(422);
    expect(nullOnCreate.body.detail).toEqual([
      expect.objectContaining({
        loc: ["body", "resources"],
        msg: "Input should be a valid dictionary: leave resources out for a key usable for every resource",
      }),
    ]);
    const created = await create({});
    const patched = await call("PATCH", `/${created.body.id}`, {
      resources: { profile: ["alice"] },
    });
    expect(patched.status).toBe(200);
    expect((await verifyFor(created.body.key as string, { profile: "bob" })).ok).toBe(false);
  });

  it("keys.create and keys.update take resources too, with the same rules", async () => {
    const { keyward, verifyFor } = await setup();
    const created = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
      resources: { profile: ["alice"] },
    });
    expect(created.resources).toEqual({ profile: ["alice"] });
    await expect(
      keyward.keys.update("alice", created.id, { resources: { profile: ["bob"] } }),
    ).rejects.toMatchObject({ code: "validation_failed" });
    expect((await verifyFor(created.key, { profile: "alice" })).ok).toBe(true);
  });
});

describe("without permissions()", () => {
  it("refuses `resources` on create with 422 extra_forbidden, naming the feature", async () => {
    const { create } = await setup([lifecycle()]);
    const refused = await create({ resources: { profile: ["alice"] } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual([
      expect.objectContaining({ loc: ["body", "resources"], type: "extra_forbidden" }),
    ]);
  });

  it("refuses `resources` on PATCH with 422 extra_forbidden", async () => {
    const { create, call } = await setup([lifecycle()]);
    const created = await create({});
    const refused = await call("PATCH", `/${created.body.id}`, { resources: { profile: ["a"] } });
    expect(refused.status).toBe(422);
  });

  it("refuses a key stored with resources wherever a route names a resource, warning once", async () => {
    const store = memoryStore();
    const withFeature = setup([lifecycle(), permissions()], store);
    const created = await withFeature.create({ resources: { profile: ["alice"] } });
    const without = setup([lifecycle()], store);
    const key = created.body.key as string;
    for (const resource of [{ profile: "alice" }, { profile: "alice" }]) {
      const refused = await without.verifyFor(key, resource);
      expect(refused.ok).toBe(false);
      if (!refused.ok) expect(refused.error.code).toBe("resource_not_allowed");
    }
    expect(without.warnings.filter((line) => line.includes("permissions()"))).toHaveLength(1);
    expect((await without.verifyFor(key)).ok).toBe(true);
  });
});

describe("permissions(): resource input that once reached a 5xx", () => {
  it("refuses a lone surrogate in a resource id with 422, on create and PATCH, creating nothing", async () => {
    const { create, call, keyward } = setup();
    for (const id of ["\ud800", "a\udfffb", "x\ud83d"]) {
      const refused = await create({ resources: { profile: [id] } });
      expect([refused.status, refused.body.code]).toEqual([422, "validation_failed"]);
    }
    expect(await keyward.keys.list("alice")).toEqual([]);
    const { body } = await create({ resources: { profile: ["alice"] } });
    const patched = await call("PATCH", `/${body.id}`, { resources: { profile: ["\udc00"] } });
    expect(patched.status).toBe(422);
    // A whole pair is a character like any other.
    expect((await create({ resources: { profile: ["\ud83d\ude00"] } })).status).toBe(201);
  });

  it("takes `constructor` and `toString` as kinds like any other: create, PATCH, verify", async () => {
    const { create, call, verifyFor } = setup();
    const limited = await create({ resources: { profile: ["alice"] } });
    expect(limited.status).toBe(201);
    // PATCH naming a kind the key does not limit, whose name an object inherits.
    const resources: Record<string, string[]> = { profile: ["alice"] };
    for (const kind of ["constructor", "toString", "hasOwnProperty"]) {
      resources[kind] = ["x"];
      const patched = await call("PATCH", `/${limited.body.id}`, { resources });
      expect(patched.status).toBe(200);
    }
    const key = limited.body.key as string;
    // verify with a route naming such a kind: the key does not limit it.
    const fresh = await create({ resources: { profile: ["alice"] } });
    for (const kind of ["constructor", "toString", "valueOf"]) {
      const result = await verifyFor(fresh.body.key as string, { [kind]: "x" });
      expect(result.ok).toBe(true);
    }
    // A key limited in `constructor` keeps to its ids.
    const odd = await create({ resources: { constructor: ["a"], toString: [] } });
    expect(odd.status).toBe(201);
    expect((await verifyFor(odd.body.key as string, { constructor: "a" })).ok).toBe(true);
    const refused = await verifyFor(odd.body.key as string, { toString: "a" });
    expect(refused.ok || refused.error.code).toBe("resource_not_allowed");
    // Narrowing leaves out a kind named like an inherited one: refused as widening, never a 500.
    const widened = await call("PATCH", `/${odd.body.id}`, { resources: { toString: [] } });
    expect([widened.status, widened.body.code]).toEqual([422, "validation_failed"]);
    expect(key).toBeTypeOf("string");
  });
});
