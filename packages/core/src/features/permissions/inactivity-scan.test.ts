import { describe, expect, it } from "vitest";
import { manualClock } from "../../clock.js";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import { events } from "../events/index.js";
import { imports } from "../imports/index.js";
import { lifecycle } from "../lifecycle/index.js";
import { permissions } from "./index.js";
import type { PermissionsConfig } from "./permissions-config.js";

const day = 86_400_000;
const start = Date.parse("2026-01-01T00:00:00.000Z");

const setup = (config: PermissionsConfig) => {
  const clock = manualClock(start);
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "profile:read": "Read" },
    tiers: {
      free: { rateLimit: { limit: 1000, window: "1m" } },
      pro: { rateLimit: { limit: 1000, window: "1m" } },
    },
    clock,
    logger: false,
    features: [
      lifecycle(),
      events({ pruneIntervalMs: false, expiring: false }),
      permissions({ inactivityScanIntervalMs: false, ...config }),
    ],
  });
  const create = (tier = "free") =>
    keyward.keys.create({
      ownerId: "alice",
      accountTier: "pro",
      name: "k",
      scopes: ["profile:read"],
      tier,
    });
  const use = (secret: string) =>
    keyward.verify(`Bearer ${secret}`, { scopes: ["profile:read"], route: "GET /p" });
  const eventsOf = async (keyId: string) =>
    (await keyward.events.list({ owner: "alice", keyId })).data.map((event) => ({
      type: event.type,
      actor: event.actor,
    }));
  return { keyward, clock, create, use, eventsOf };
};

describe("permissions({ disableAfterUnused })", () => {
  it("disables a key unused that long once, with key.disabled by the system; a key used the day before is untouched", async () => {
    const { keyward, clock, create, use, eventsOf } = setup({
      disableAfterUnused: "90d",
      inactivityWarning: 0,
    });
    const stale = await create();
    const fresh = await create();
    clock.advance(89 * day);
    expect((await use(fresh.key)).ok).toBe(true);
    clock.advance(day);
    expect(await keyward.permissions.scanInactive()).toEqual({ disabled: 1, warned: 0 });
    expect((await use(stale.key)).ok).toBe(false);
    expect((await use(fresh.key)).ok).toBe(true);
    // Scanned again: nothing more to do, no second event.
    expect(await keyward.permissions.scanInactive()).toEqual({ disabled: 0, warned: 0 });
    expect((await eventsOf(stale.id)).filter((event) => event.type === "key.disabled")).toEqual([
      { type: "key.disabled", actor: { type: "system" } },
    ]);
    expect((await eventsOf(fresh.id)).filter((event) => event.type === "key.disabled")).toEqual([]);
  });

  it("warns ahead with key.inactive once per last use, then disables", async () => {
    const { keyward, clock, create, eventsOf } = setup({
      disableAfterUnused: "30d",
      inactivityWarning: "7d",
    });
    const key = await create();
    clock.advance(22 * day);
    expect(await keyward.permissions.scanInactive()).toEqual({ disabled: 0, warned: 0 });
    clock.advance(day);
    expect(await keyward.permissions.scanInactive()).toEqual({ disabled: 0, warned: 1 });
    expect(await keyward.permissions.scanInactive()).toEqual({ disabled: 0, warned: 0 });
    const [warning] = (await keyward.events.list({ owner: "alice", keyId: key.id })).data.filter(
      (event) => event.type === "key.inactive",
    );
    expect(warning?.data).toEqual({
      lastUsedAt: null,
      disablesAt: new Date(start + 30 * day).toISOString(),
    });
    clock.advance(7 * day);
    expect(await keyward.permissions.scanInactive()).toEqual({ disabled: 1, warned: 0 });
    expect((await eventsOf(key.id)).map((event) => event.type)).toEqual([
      "key.disabled",
      "key.inactive",
      "key.created",
    ]);
  });

  it("applies per tier with a function, and counts a rotation as a sign of life", async () => {
    const { keyward, clock, create } = setup({
      disableAfterUnused: ({ tier }) => (tier === "free" ? "10d" : undefined),
      inactivityWarning: 0,
    });
    const free = await create("free");
    const pro = await create("pro");
    const rotated = await create("free");
    clock.advance(5 * day);
    await keyward.keys.rotate("alice", rotated.id);
    clock.advance(6 * day);
    expect(await keyward.permissions.scanInactive()).toEqual({ disabled: 1, warned: 0 });
    const byId = new Map((await keyward.keys.list("alice")).map((key) => [key.id, key.status]));
    expect(byId.get(free.id)).toBe("disabled");
    expect(byId.get(pro.id)).toBe("active");
    expect(byId.get(rotated.id)).toBe("active");
  });

  it("counts an owner's enabling a disabled key as a sign of life: the next scan leaves it enabled", async () => {
    const { keyward, clock, create, eventsOf } = setup({
      disableAfterUnused: "90d",
      inactivityWarning: 0,
    });
    const key = await create();
    clock.advance(90 * day);
    expect(await keyward.permissions.scanInactive()).toEqual({ disabled: 1, warned: 0 });
    clock.advance(day);
    await keyward.keys.update("alice", key.id, { enabled: true });
    clock.advance(day);
    expect(await keyward.permissions.scanInactive()).toEqual({ disabled: 0, warned: 0 });
    expect((await keyward.keys.list("alice"))[0]?.status).toBe("active");
    // Counted from the enabling (day 91): unused 89 days is not yet 90…
    clock.advance(88 * day);
    expect(await keyward.permissions.scanInactive()).toEqual({ disabled: 0, warned: 0 });
    // …and 90 is.
    clock.advance(day);
    expect(await keyward.permissions.scanInactive()).toEqual({ disabled: 1, warned: 0 });
    expect((await eventsOf(key.id)).map((event) => event.type)).toEqual([
      "key.disabled",
      "key.enabled",
      "key.disabled",
      "key.created",
    ]);
  });

  it("does not count `enabled: true` on a key that was not disabled: only an enabling is a sign of life", async () => {
    const { keyward, clock, create, eventsOf } = setup({
      disableAfterUnused: "90d",
      inactivityWarning: 0,
    });
    const key = await create();
    clock.advance(89 * day);
    await keyward.keys.update("alice", key.id, { enabled: true });
    clock.advance(day);
    expect(await keyward.permissions.scanInactive()).toEqual({ disabled: 1, warned: 0 });
    expect((await eventsOf(key.id)).map((event) => event.type)).toEqual([
      "key.disabled",
      "key.created",
    ]);
  });

  it("counts an imported key's last use in the system it came from, not only its creation there", async () => {
    const clock = manualClock(start);
    const keyward = createKeyward({
      store: memoryStore(),
      scopes: { "profile:read": "Read" },
      tiers: { free: { rateLimit: { limit: 1000, window: "1m" } } },
      clock,
      logger: false,
      features: [
        imports(),
        permissions({ inactivityScanIntervalMs: false, disableAfterUnused: "90d" }),
      ],
    });
    const record = { owner: "alice", tier: "free", createdAt: "2024-01-01T00:00:00Z" };
    const { importedIds } = await keyward.imports.importKeys([
      { ...record, key: `ba_${"a".repeat(64)}`, lastUsedAt: "2025-12-01T00:00:00Z" },
      { ...record, key: `ba_${"b".repeat(64)}` },
    ]);
    const [usedThere, neverUsed] = importedIds;
    expect(await keyward.permissions.scanInactive()).toEqual({ disabled: 1, warned: 0 });
    const byId = new Map((await keyward.keys.list("alice")).map((key) => [key.id, key.status]));
    expect(byId.get(usedThere!)).toBe("active");
    expect(byId.get(neverUsed!)).toBe("disabled");
    // Disabled 90 days after that use (2025-12-01 + 90 days = 2026-03-01), not a week before.
    clock.advance(Date.parse("2026-02-22T00:00:00Z") - start);
    expect(await keyward.permissions.scanInactive()).toEqual({ disabled: 0, warned: 0 });
    clock.advance(7 * day);
    expect(await keyward.permissions.scanInactive()).toEqual({ disabled: 1, warned: 0 });
  });

  it("refuses at createKeyward a key store that cannot list live keys, naming the part", () => {
    const store = memoryStore();
    const { listLive: _listLive, ...keys } = store.keys;
    expect(() =>
      createKeyward({
        store: { ...store, keys },
        scopes: { "profile:read": "Read" },
        tiers: { free: { rateLimit: { limit: 10, window: "1m" } } },
        features: [permissions({ disableAfterUnused: "90d" })],
      }),
    ).toThrow("`keys.listLive`");
  });

  it.each([
    [{ disableAfterUnused: "forever" }, "`permissions.disableAfterUnused` must be a lifetime"],
    [{ inactivityWarning: "soon" }, "`permissions.inactivityWarning` must be a lifetime"],
    [{ inactivityScanIntervalMs: 10 }, "`permissions.inactivityScanIntervalMs` must be"],
  ])("refuses %j with a TypeError naming the field", (config, message) => {
    expect(() => permissions(config as PermissionsConfig)).toThrow(message);
  });
});
