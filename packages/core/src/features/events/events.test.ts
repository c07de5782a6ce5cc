/**
 * Events through `createKeyward` on the memory store: what each change writes, who it names, the
 * hook, retention, the programmatic audit log's bad inputs, and that nothing changes with events
 * off.
 */
import { describe, expect, it, vi } from "vitest";
import { manualClock } from "../../clock.js";
import { KeywardError } from "../../errors/keyward-error.js";
import type { KeywardEvent } from "../../event-model/event.js";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import { lifecycle } from "../lifecycle/index.js";
import type { LifecycleConfig } from "../lifecycle/lifecycle-config.js";
import type { EventsConfig } from "./events-config.js";
import { events } from "./index.js";

const start = Date.parse("2026-05-01T00:00:00.000Z");
const day = 24 * 60 * 60 * 1000;
const scopes = { "profile:read": "Read profiles", "profile:write": "Edit profiles" };
const tiers = { free: { rateLimit: { limit: 60, window: "1m" } } };

function setup(
  options: {
    events?: EventsConfig;
    lifecycle?: LifecycleConfig;
    environments?: Record<string, string>;
  } = {},
) {
  const clock = manualClock(start);
  const store = memoryStore();
  const errors: string[] = [];
  const keyward = createKeyward({
    store,
    scopes,
    tiers,
    clock,
    jwt: false,
    logger: { error: (message) => void errors.push(message), warn() {} },
    ...(options.environments ? { keys: { environments: options.environments } } : {}),
    features: [
      events(options.events ?? { pruneIntervalMs: false }),
      ...(options.lifecycle ? [lifecycle(options.lifecycle)] : []),
    ],
  });
  const create = () =>
    keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "deploy bot",
      scopes: ["profile:read", "profile:write"],
      tier: "free",
    });
  return { clock, store, keyward, errors, create };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (reason: unknown) => reason,
  );
}

describe("events written with key changes", () => {
  it("records each change with its data, the operator as actor, and the change's time", async () => {
    const { clock, keyward, create } = setup();
    const key = await create();
    clock.advance(1_000);
    const rotated = await keyward.keys.rotate("alice", key.id);
    clock.advance(1_000);
    await keyward.keys.update("alice", key.id, {
      name: "deploy bot",
      scopes: ["profile:read"],
      metadata: { team: "ops" },
    });
    clock.advance(1_000);
    await keyward.keys.revoke("alice", key.id);

    const { data, nextCursor } = await keyward.events.list({ owner: "alice" });
    expect(nextCursor).toBeNull();
    const common = {
      owner: { type: "user", id: "alice" },
      keyId: key.id,
      actor: { type: "operator" },
    };
    expect(data).toEqual([
      {
        ...common,
        id: expect.any(String),
        type: "key.revoked",
        occurredAt: "2026-05-01T00:00:03.000Z",
        data: {},
      },
      {
        ...common,
        id: expect.any(String),
        type: "key.updated",
        occurredAt: "2026-05-01T00:00:02.000Z",
        // The name given was the current one: only what changed is listed.
        data: { changes: { scopes: ["profile:read"], metadata: { team: "ops" } } },
      },
      {
        ...common,
        id: expect.any(String),
        type: "key.rotated",
        occurredAt: "2026-05-01T00:00:01.000Z",
        data: { previousHint: key.hint, hint: rotated.hint },
      },
      {
        ...common,
        id: expect.any(String),
        type: "key.created",
        occurredAt: "2026-05-01T00:00:00.000Z",
        data: {
          name: "deploy bot",
          scopes: ["profile:read", "profile:write"],
          tier: "free",
          expiresAt: null,
          hint: key.hint,
          createdBy: "alice",
        },
      },
    ]);
    for (const event of data) expect(event.id).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(JSON.stringify(data)).not.toContain(key.key);
    expect(JSON.stringify(data)).not.toContain(rotated.key);
  });

  it("writes key.disabled and key.enabled only when the state changes", async () => {
    const { keyward, create } = setup();
    const key = await create();
    await keyward.keys.update("alice", key.id, { enabled: false });
    await keyward.keys.update("alice", key.id, { enabled: false });
    await keyward.keys.update("alice", key.id, { enabled: true });
    await keyward.keys.update("alice", key.id, { enabled: true });
    await keyward.keys.update("alice", key.id, { name: "deploy bot" });
    const { data } = await keyward.events.list({ owner: "alice", keyId: key.id });
    expect(data.map((event) => event.type).sort()).toEqual(
      ["key.created", "key.disabled", "key.enabled"].sort(),
    );
  });

  it("records a key's environment and allowlist when created, and allowlist changes as updates", async () => {
    const { clock, keyward } = setup({
      lifecycle: {},
      environments: { live: "sk_live_", test: "sk_test_" },
    });
    const key = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "pinned",
      scopes: ["profile:read"],
      tier: "free",
      environment: "test",
      allowedIps: ["::ffff:203.0.113.0/120"],
    });
    clock.advance(1_000);
    await keyward.keys.update("alice", key.id, { allowedIps: ["203.0.113.0/24"] }); // the same
    await keyward.keys.update("alice", key.id, { allowedIps: ["198.51.100.7"] });
    clock.advance(1_000);
    await keyward.keys.update("alice", key.id, { allowedIps: null });
    const { data } = await keyward.events.list({ owner: "alice", keyId: key.id });
    expect(data.map((event) => [event.type, event.data])).toEqual([
      ["key.updated", { changes: { allowedIps: null } }],
      ["key.updated", { changes: { allowedIps: ["198.51.100.7"] } }],
      [
        "key.created",
        expect.objectContaining({ environment: "test", allowedIps: ["203.0.113.0/24"] }),
      ],
    ]);
  });

  it("revokeAll writes one key.revoked per key it revoked", async () => {
    const { keyward, create } = setup();
    const [a, b] = [await create(), await create()];
    await keyward.keys.revoke("alice", a.id);
    expect(await keyward.keys.revokeAll("alice")).toEqual({ revoked: 1 });
    const { data } = await keyward.events.list({ owner: "alice", types: ["key.revoked"] });
    expect(data.map((event) => event.keyId).sort()).toEqual([a.id, b.id].sort());
  });

  it("writes nothing for a change that fails", async () => {
    const { clock, keyward, create } = setup();
    const key = await create();
    clock.advance(1_000);
    await keyward.keys.revoke("alice", key.id);
    await rejection(keyward.keys.revoke("alice", key.id));
    await rejection(keyward.keys.rotate("alice", key.id));
    await rejection(keyward.keys.update("alice", key.id, { name: "late" }));
    await rejection(keyward.keys.update("alice", key.id, { name: "" }));
    const { data } = await keyward.events.list({ owner: "alice" });
    expect(data.map((event) => event.type)).toEqual(["key.revoked", "key.created"]);
  });
});

describe("onEvent", () => {
  it("is called after the change is committed, once per event, in order", async () => {
    const seen: KeywardEvent[] = [];
    const listedInHook: number[] = [];
    const { clock, keyward, create } = setup({
      events: {
        pruneIntervalMs: false,
        onEvent: (event) => {
          seen.push(event);
          // The change and its event are already there for anyone to read.
          void keyward.events
            .list({ owner: "alice" })
            .then((page) => listedInHook.push(page.data.length));
        },
      },
    });
    const key = await create();
    clock.advance(1_000);
    await keyward.keys.revoke("alice", key.id);
    await vi.waitFor(() => expect(listedInHook).toHaveLength(2));
    expect(seen.map((event) => event.type)).toEqual(["key.created", "key.revoked"]);
    expect(listedInHook[0]).toBeGreaterThanOrEqual(1);
    expect((await keyward.events.list({ owner: "alice" })).data).toEqual([...seen].reverse());
  });

  it("a hook that throws or rejects is logged with the event's type and id, and the change stands", async () => {
    let calls = 0;
    const { clock, keyward, errors, create } = setup({
      events: {
        pruneIntervalMs: false,
        onEvent: (event) => {
          calls++;
          if (event.type === "key.created") throw new Error("hook exploded");
          return Promise.reject(new Error("hook rejected"));
        },
      },
    });
    const key = await create();
    clock.advance(1_000);
    const revoked = await keyward.keys.revoke("alice", key.id);
    expect(revoked.status).toBe("revoked");
    await vi.waitFor(() => expect(errors).toHaveLength(2));
    expect(calls).toBe(2);
    const { data } = await keyward.events.list({ owner: "alice" });
    expect(errors).toEqual([
      `the onEvent hook failed for key.created ${data[1]!.id}`,
      `the onEvent hook failed for key.revoked ${data[0]!.id}`,
    ]);
    for (const message of errors) expect(message).not.toContain(key.key);
  });
});

describe("retention", () => {
  it("prune() deletes events older than retainDays, and only those", async () => {
    const { clock, keyward, create } = setup({
      events: { retainDays: 30, pruneIntervalMs: false },
    });
    const old = await create();
    clock.advance(20 * day);
    const recent = await create();
    clock.advance(10 * day + 1);
    expect(await keyward.events.prune()).toEqual({ pruned: 1 });
    const { data } = await keyward.events.list({ owner: "alice" });
    expect(data.map((event) => event.keyId)).toEqual([recent.id]);
    // The key itself is untouched: only its history ages out.
    expect((await keyward.keys.list("alice")).map((key) => key.id)).toContain(old.id);
  });

  it("prunes on a timer started by the first event, never on the request path", async () => {
    vi.useFakeTimers();
    try {
      const { clock, store, keyward, create } = setup({
        events: { retainDays: 1, pruneIntervalMs: 60_000 },
      });
      const prune = vi.spyOn(store.keys.events, "prune");
      await create();
      expect(prune).not.toHaveBeenCalled();
      clock.advance(2 * day);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(prune).toHaveBeenCalledWith(clock.now() - day);
      expect((await keyward.events.list({ owner: "alice" })).data).toEqual([]);
      await keyward.close();
      await vi.advanceTimersByTimeAsync(600_000);
      expect(prune).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("keyward.events.list: bad input", () => {
  it("refuses a malformed owner, another owner's key, an unknown key and bad paging, changing nothing", async () => {
    const { store, keyward, create } = setup();
    const key = await create();
    const before = JSON.stringify(store.snapshot());
    await expect(keyward.events.list({ owner: "" })).rejects.toThrow(TypeError);
    await expect(keyward.events.list(null as never)).rejects.toThrow(TypeError);
    const notOwner = await rejection(keyward.events.list({ owner: "bob", keyId: key.id }));
    expect(notOwner).toMatchObject({ status: 403, code: "not_owner" });
    const unknown = await rejection(keyward.events.list({ owner: "alice", keyId: "key_nope" }));
    expect(unknown).toMatchObject({ status: 404, code: "key_not_found" });
    for (const options of [
      { limit: 0 },
      { limit: 1_001 },
      { limit: 1.5 },
      { after: "not a cursor" },
      { types: ["key.exploded"] },
      { types: [] },
    ]) {
      const error = await rejection(
        keyward.events.list({ owner: "alice", ...(options as object) }),
      );
      expect(error, JSON.stringify(options)).toBeInstanceOf(KeywardError);
      expect((error as KeywardError).status).toBe(422);
    }
    expect(JSON.stringify(store.snapshot())).toBe(before);
  });
});

describe("events configuration", () => {
  const base = { store: memoryStore(), scopes, tiers, jwt: false as const };

  it("refuses a key store that cannot write events with its changes, naming the fix", () => {
    // A store whose key store writes no events: no `events` part.
    const { events: _events, ...store } = memoryStore();
    expect(() => createKeyward({ ...base, store, features: [events()] })).toThrow(
      /the feature `events` needs a store whose key store writes events together with its changes/,
    );
    // Without events(), the same store is fine.
    expect(() => createKeyward({ ...base, store })).not.toThrow();
  });

  it("refuses malformed options with the option's name", () => {
    const cases: [unknown, RegExp][] = [
      [true, /events\(\) takes an object/],
      [{ retainDays: 0 }, /`events.retainDays`/],
      [{ retainDays: 1.5 }, /`events.retainDays`/],
      [{ retainDays: 100_000 }, /`events.retainDays`/],
      [{ onEvent: "yes" }, /`events.onEvent` must be a function/],
      [{ pruneIntervalMs: -1 }, /`events.pruneIntervalMs`/],
    ];
    for (const [config, message] of cases) {
      expect(() => events(config as never)).toThrow(message);
    }
  });

  it("not listed: the store is never handed an event, and the instance has no events API", async () => {
    const store = memoryStore();
    const keyward = createKeyward({ store, scopes, tiers, jwt: false });
    // Each method's events argument (update's is followed by the version it expects).
    const eventsArgument = { create: 1, rotate: 1, revoke: 2, update: 2 } as const;
    const calls: unknown[] = [];
    for (const method of ["create", "rotate", "revoke", "update"] as const) {
      const original = store.keys[method] as (...args: unknown[]) => Promise<unknown>;
      store.keys[method] = ((...args: unknown[]) => {
        calls.push(args[eventsArgument[method]]);
        return original(...args);
      }) as never;
    }
    const key = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    await keyward.keys.rotate("alice", key.id);
    await keyward.keys.update("alice", key.id, { enabled: false });
    await keyward.keys.revoke("alice", key.id);
    expect(calls).toHaveLength(4);
    for (const events of calls) expect(events).toBeUndefined();
    expect(store.keys.events.snapshot()).toEqual([]);
    expect("events" in keyward).toBe(false);
  });
});
