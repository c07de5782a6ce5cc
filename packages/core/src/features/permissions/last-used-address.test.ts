import { describe, expect, it } from "vitest";
import { manualClock } from "../../clock.js";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import { permissions } from "./index.js";
import type { PermissionsConfig } from "./permissions-config.js";

const start = Date.parse("2026-07-01T00:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

const setup = (config: PermissionsConfig) => {
  const clock = manualClock(start);
  const store = memoryStore();
  const keyward = createKeyward({
    store,
    scopes: { "profile:read": "Read" },
    tiers: { free: { rateLimit: { limit: 100, window: "1m" } } },
    jwt: { secret: "record-address-test-secret-of-at-least-32-bytes" },
    clock,
    logger: false,
    features: [permissions(config)],
  });
  const newKey = async () => {
    const created = await keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    return { id: created.id, authorization: `Bearer ${created.key}` };
  };
  const use = async (authorization: string, clientIp?: string) => {
    const result = await keyward.verify(authorization, {
      scopes: ["profile:read"],
      route: "GET /profiles/:slug",
      clientIp,
    });
    expect(result.ok).toBe(true);
  };
  const shown = async (id: string) => {
    const usage = await keyward.keys.usage("alice", id);
    const [record] = await keyward.keys.list("alice");
    return { usage, record: record! };
  };
  return { keyward, clock, store, newKey, use, shown };
};

describe("permissions({ lastUsedAddress })", () => {
  it("records the client address of the key's last use, normalised, in its usage and record", async () => {
    const { clock, newKey, use, shown } = setup({ lastUsedAddress: true });
    const key = await newKey();
    await use(key.authorization, "::ffff:127.0.0.1");
    let { usage, record } = await shown(key.id);
    expect(usage.lastUsedAddress).toBe("127.0.0.1");
    expect(usage.lastUsedAt).toBe(iso(start));
    expect(record.lastUsedAddress).toBe("127.0.0.1");
    expect(record.lastUsedAt).toBe(iso(start));

    clock.advance(1_000);
    await use(key.authorization, "2001:DB8:0::1");
    ({ usage, record } = await shown(key.id));
    expect(usage.lastUsedAddress).toBe("2001:db8::1");
    expect(record.lastUsedAddress).toBe("2001:db8::1");
  });

  it("keeps the previous address for a use without one, or with a value that is no address", async () => {
    const { clock, newKey, use, shown } = setup({ lastUsedAddress: true });
    const key = await newKey();
    await use(key.authorization, "192.0.2.7");
    clock.advance(1_000);
    await use(key.authorization);
    clock.advance(1_000);
    await use(key.authorization, "/tmp/app.sock");
    const { usage, record } = await shown(key.id);
    expect(usage.lastUsedAt).toBe(iso(start + 2_000));
    expect(usage.lastUsedAddress).toBe("192.0.2.7");
    expect(record.lastUsedAddress).toBe("192.0.2.7");
  });

  it("shows no address on a key used without one, nor on a key never used", async () => {
    const { newKey, use, shown } = setup({ lastUsedAddress: true });
    const unused = await newKey();
    expect((await shown(unused.id)).usage).not.toHaveProperty("lastUsedAddress");
    expect((await shown(unused.id)).record).not.toHaveProperty("lastUsedAddress");
    await use(unused.authorization);
    expect((await shown(unused.id)).usage).not.toHaveProperty("lastUsedAddress");
  });

  it("records nothing when off (the default), though verify is given an address", async () => {
    const { newKey, use, shown, store } = setup({});
    const key = await newKey();
    await use(key.authorization, "192.0.2.7");
    const { usage, record } = await shown(key.id);
    expect(usage.totalRequests).toBe(1);
    expect(usage).not.toHaveProperty("lastUsedAddress");
    expect(record).not.toHaveProperty("lastUsedAddress");
    expect(await store.usage.read(key.id)).not.toHaveProperty("lastUsedAddress");
  });

  it("keeps an address through usage retention's prune", async () => {
    const { clock, newKey, use, store, shown } = setup({ lastUsedAddress: true });
    const key = await newKey();
    await use(key.authorization, "192.0.2.7");
    await shown(key.id);
    clock.advance(3 * 86_400_000);
    await store.usage.prune!("2026-07-03");
    const { usage } = await shown(key.id);
    expect(usage.daily).toEqual([]);
    expect(usage.lastUsedAddress).toBe("192.0.2.7");
  });

  it.each([
    [
      { lastUsedAddress: "yes" },
      '`permissions.lastUsedAddress` must be true or false, got string "yes"',
    ],
    [{ lastUsedAddress: 1 }, "`permissions.lastUsedAddress` must be true or false, got number 1"],
    [{ lastUsedAddress: null }, "`permissions.lastUsedAddress` must be true or false, got null"],
  ])("refuses %j with a TypeError naming the field", (config, message) => {
    expect(() => permissions(config as unknown as PermissionsConfig)).toThrow(TypeError);
    expect(() => permissions(config as unknown as PermissionsConfig)).toThrow(message);
  });
});
