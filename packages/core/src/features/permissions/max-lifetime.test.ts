import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { manualClock } from "../../clock.js";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import { organizations } from "../organizations/index.js";
import { permissions } from "./index.js";
import type { PermissionsConfig } from "./permissions-config.js";

const secret = "max-lifetime-test-secret-of-at-least-32-bytes";
const start = Date.parse("2026-07-01T00:00:00.000Z");
const day = 86_400_000;

const setup = (config: PermissionsConfig) => {
  const clock = manualClock(start);
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "profile:read": "Read" },
    tiers: {
      free: { rateLimit: { limit: 100, window: "1m" } },
      pro: { rateLimit: { limit: 100, window: "1m" } },
    },
    jwt: { secret },
    clock,
    logger: false,
    features: [
      organizations({ memberships: () => [{ id: "acme", role: "owner", tier: "pro" }] }),
      permissions(config),
    ],
  });
  const create = async (fields: Record<string, unknown>) => {
    const token = await new SignJWT({ tier: "pro" })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("alice")
      .setIssuedAt(Math.floor(clock.now() / 1000))
      .setExpirationTime(Math.floor(clock.now() / 1000) + 600)
      .sign(new TextEncoder().encode(secret));
    const response = await keyward.handle(
      new Request("http://keyward.test/api/v1/api-keys", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "k", scopes: ["profile:read"], tier: "free", ...fields }),
      }),
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { keyward, create, clock };
};

const iso = (ms: number) => new Date(ms).toISOString();

describe("permissions({ maxLifetime })", () => {
  it("gives a key created without an expiry the cap", async () => {
    const { create } = setup({ maxLifetime: "30d" });
    const created = await create({});
    expect(created.status).toBe(201);
    expect(created.body.expiresAt).toBe(iso(start + 30 * day));
  });

  it("keeps an expiry within the cap, the cap itself included", async () => {
    const { create } = setup({ maxLifetime: "30d" });
    expect((await create({ expiresAt: iso(start + 7 * day) })).body.expiresAt).toBe(
      iso(start + 7 * day),
    );
    expect((await create({ expiresAt: iso(start + 30 * day) })).status).toBe(201);
  });

  it("refuses an expiry past the cap with 422 at expiresAt, creating nothing", async () => {
    const { create, keyward } = setup({ maxLifetime: "30d" });
    const refused = await create({ expiresAt: iso(start + 30 * day + 1000) });
    expect(refused).toEqual({
      status: 422,
      body: {
        detail: [
          {
            loc: ["body", "expiresAt"],
            msg: `Value error, a key of tier 'free' may live at most 30 days: expiresAt must be ${iso(start + 30 * day)} or earlier`,
            type: "value_error",
          },
        ],
        code: "validation_failed",
      },
    });
    expect(await keyward.keys.list("alice")).toEqual([]);
  });

  it("caps per tier and per owner with a function; undefined is no cap", async () => {
    const { create } = setup({
      maxLifetime: ({ tier, owner }) =>
        owner.type === "organization" ? "90d" : tier === "free" ? "1d" : undefined,
    });
    expect((await create({})).body.expiresAt).toBe(iso(start + day));
    expect((await create({ tier: "pro" })).body.expiresAt).toBeNull();
    expect((await create({ organizationId: "acme" })).body.expiresAt).toBe(iso(start + 90 * day));
  });

  it("keys.create, the operator's API, follows the same policy", async () => {
    const { keyward } = setup({ maxLifetime: "1h" });
    const created = await keyward.keys.create({
      ownerId: "bob",
      accountTier: "free",
      name: "k",
      scopes: ["profile:read"],
      tier: "free",
    });
    expect(created.expiresAt).toBe(iso(start + 3_600_000));
    await expect(
      keyward.keys.create({
        ownerId: "bob",
        accountTier: "free",
        name: "k",
        scopes: ["profile:read"],
        tier: "free",
        expiresAt: iso(start + 2 * 3_600_000),
      }),
    ).rejects.toMatchObject({ code: "validation_failed" });
  });

  it.each([
    [{ maxLifetime: "30 days" }, '`permissions.maxLifetime` must be a lifetime such as "30d"'],
    [{ maxLifetime: -1 }, "`permissions.maxLifetime` must be a lifetime"],
    [{ maxLifetime: "0s" }, "`permissions.maxLifetime` must be at least one second"],
    [{ maxLifetime: true }, "`permissions.maxLifetime` must be a lifetime"],
    ["30d", 'permissions() takes an object like { maxLifetime: "30d" }'],
  ])("refuses %j with a TypeError naming the field", (config, message) => {
    expect(() => permissions(config as PermissionsConfig)).toThrow(message);
  });
});
