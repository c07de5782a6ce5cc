/**
 * Updates that race other changes of the same key. A race is made exact here: the store lets a
 * competing change of the key through just before the API's own write reaches it, which is what a
 * second instance does when its PATCH lands between this one's read and write. (The two-process
 * tests in the PostgreSQL package race real instances; these pin down each outcome.)
 */
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { manualClock } from "../clock.js";
import { KeywardError } from "../errors/keyward-error.js";
import { events } from "../features/events/index.js";
import { lifecycle } from "../features/lifecycle/index.js";
import { createKeyward } from "../keyward/create-keyward.js";
import { memoryStore } from "../memory/memory-store.js";
import type { KeyStore, KeyUpdate } from "../storage/key-store.js";

const start = Date.parse("2026-05-01T00:00:00.000Z");
const secret = "concurrent-updates-secret-of-32-bytes!";
const scopes = {
  "profile:read": "Read profiles",
  "profile:write": "Edit profiles",
  "profile:admin": "Administer profiles",
};
const tiers = { free: { rateLimit: { limit: 60, window: "1m" } } };

/**
 * A memory store whose `update` first applies `competing` (one change per call, in order) to the
 * same key, as another instance would, then passes the call on.
 */
function racedStore(competing: KeyUpdate[]) {
  const store = memoryStore();
  const inner: KeyStore = store.keys;
  const originalUpdate = inner.update.bind(inner);
  let calls = 0;
  store.keys.update = async (id, changes, events, expectedVersion) => {
    const change = competing[calls++];
    if (change) await originalUpdate(id, change);
    return originalUpdate(id, changes, events, expectedVersion);
  };
  return { store, calls: () => calls };
}

function setup(competing: KeyUpdate[]) {
  const raced = racedStore(competing);
  const keyward = createKeyward({
    store: raced.store,
    scopes,
    tiers,
    clock: manualClock(start),
    jwt: { secret },
    features: [lifecycle(), events({ pruneIntervalMs: false })],
  });
  const create = (keyScopes: string[]) =>
    keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "deploy bot",
      scopes: keyScopes,
      tier: "free",
    });
  /** The key's events after its creation (all at one time on this clock, so in no set order). */
  const eventsOf = async (keyId: string) =>
    (await keyward.events.list({ owner: "alice", keyId })).data
      .filter((event) => event.type !== "key.created")
      .map((event) => [event.type, event.data]);
  const patch = async (keyId: string, body: unknown, headers: Record<string, string> = {}) => {
    const token = await new SignJWT({ tier: "free" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(secret));
    const response = await keyward.handle(
      new Request(`http://api.test/api/v1/api-keys/${keyId}`, {
        method: "PATCH",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          ...headers,
        },
        body: JSON.stringify(body),
      }),
    );
    return {
      status: response.status,
      etag: response.headers.get("etag"),
      body: await response.json(),
    };
  };
  return { keyward, store: raced.store, calls: raced.calls, create, events: eventsOf, patch };
}

const record = async (keyward: ReturnType<typeof setup>["keyward"], id: string) =>
  (await keyward.keys.list("alice")).find((key) => key.id === id)!;

describe("keys.update racing another change of the key", () => {
  it("never undoes a narrowing: scopes the key no longer has are a 422, and nothing is written", async () => {
    // Another instance narrows to read-only while this one narrows to read and write.
    const { keyward, create, events } = setup([{ scopes: ["profile:read"] }]);
    const key = await create(["profile:read", "profile:write", "profile:admin"]);
    const error = await keyward.keys
      .update("alice", key.id, { scopes: ["profile:read", "profile:write"] })
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(KeywardError);
    expect((error as KeywardError).code).toBe("validation_failed");
    expect((error as KeywardError).detail).toEqual([
      expect.objectContaining({ loc: ["body", "scopes", 1], type: "value_error" }),
    ]);
    expect((await record(keyward, key.id)).scopes).toEqual(["profile:read"]);
    // No event from this call (the competing write stands for another instance's, not shown).
    expect(await events(key.id)).toEqual([]);
  });

  it("applies a change that still holds on the new record, with events saying what it wrote", async () => {
    // Another instance disables the key between this call's read and its write: enabling it
    // again is a change, and the last event must say so.
    const { keyward, create, events, calls } = setup([{ disabledAt: start }]);
    const key = await create(["profile:read"]);
    const updated = await keyward.keys.update("alice", key.id, { name: "renamed", enabled: true });
    expect(updated).toMatchObject({ name: "renamed", status: "active" });
    expect(calls()).toBe(2); // lost once, then won
    expect(await record(keyward, key.id)).toMatchObject({ name: "renamed", status: "active" });
    const written = await events(key.id);
    expect(written).toHaveLength(2);
    expect(written).toEqual(
      expect.arrayContaining([
        ["key.enabled", {}],
        ["key.updated", { changes: { name: "renamed" } }],
      ]),
    );
  });

  it("keeps a narrowing made meanwhile when its own change is another field", async () => {
    const { keyward, create, events } = setup([{ scopes: ["profile:read"] }]);
    const key = await create(["profile:read", "profile:write"]);
    const updated = await keyward.keys.update("alice", key.id, { enabled: false });
    expect(updated).toMatchObject({ scopes: ["profile:read"], status: "disabled" });
    expect(await record(keyward, key.id)).toMatchObject({
      scopes: ["profile:read"],
      status: "disabled",
    });
    expect(await events(key.id)).toEqual([["key.disabled", {}]]);
  });

  it("gives up after a few lost races: 409 update_conflict, nothing of its own written", async () => {
    const competing = Array.from({ length: 20 }, (_, i) => ({ name: `other ${i}` }));
    const { keyward, create, events, calls } = setup(competing);
    const key = await create(["profile:read"]);
    const error = await keyward.keys
      .update("alice", key.id, { metadata: { mine: true } })
      .catch((reason: unknown) => reason);
    expect((error as KeywardError).code).toBe("update_conflict");
    expect((error as KeywardError).status).toBe(409);
    expect(calls()).toBe(10);
    expect(await record(keyward, key.id)).not.toHaveProperty("metadata");
    expect(await events(key.id)).toEqual([]);
  });

  it("answers 410 when the race was a revocation", async () => {
    const { keyward, store, create } = setup([]);
    const key = await create(["profile:read"]);
    const update = store.keys.update;
    store.keys.update = async (id, changes, events, expectedVersion) => {
      await store.keys.revoke(id, start);
      return update(id, changes, events, expectedVersion);
    };
    const error = await keyward.keys
      .update("alice", key.id, { name: "x" })
      .catch((reason: unknown) => reason);
    expect((error as KeywardError).code).toBe("key_gone");
  });
});

describe("PATCH with If-Match racing another change", () => {
  it("answers 412 at once, never retrying, when the version it named was replaced before the write", async () => {
    const { create, patch, events, calls, keyward } = setup([{ scopes: ["profile:read"] }]);
    const key = await create(["profile:read", "profile:write", "profile:admin"]);
    const tag = `"${key.id}.1"`;
    const reply = await patch(
      key.id,
      { scopes: ["profile:read", "profile:write"] },
      {
        "if-match": tag,
      },
    );
    expect(reply.status).toBe(412);
    expect(reply.body).toMatchObject({ code: "precondition_failed" });
    expect(calls()).toBe(1);
    expect((await record(keyward, key.id)).scopes).toEqual(["profile:read"]);
    expect(await events(key.id)).toEqual([]);
  });

  it("refuses a rotation with If-Match (412) when the key changed between the read and the write", async () => {
    const { create, store, keyward } = setup([]);
    const key = await create(["profile:read"]);
    const hashBefore = (await store.keys.findById(key.id))!.secretHash;
    const rotate = store.keys.rotate.bind(store.keys);
    store.keys.rotate = async (rotation, events) => {
      // A rename lands first: the hash is unchanged, the version is not.
      await store.keys.update(rotation.id, { name: "renamed meanwhile" });
      return rotate(rotation, events);
    };
    const token = await new SignJWT({ tier: "free" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(secret));
    const response = await keyward.handle(
      new Request(`http://api.test/api/v1/api-keys/${key.id}/rotate`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "if-match": `"${key.id}.1"` },
      }),
    );
    expect(response.status).toBe(412);
    expect(await response.json()).toMatchObject({ code: "precondition_failed" });
    // No new secret: the hash is the one created, the record the rename left.
    expect(await store.keys.findById(key.id)).toMatchObject({
      secretHash: hashBefore,
      rotatedAt: null,
      name: "renamed meanwhile",
    });
  });

  it("answers with the ETag of the version it wrote", async () => {
    const { create, patch } = setup([]);
    const key = await create(["profile:read"]);
    const first = await patch(key.id, { name: "one" }, { "if-match": `"${key.id}.1"` });
    expect(first).toMatchObject({ status: 200, etag: `"${key.id}.2"` });
    const second = await patch(key.id, { name: "two" });
    expect(second).toMatchObject({ status: 200, etag: `"${key.id}.3"` });
  });
});
