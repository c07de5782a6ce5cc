import { describe, expect, it } from "vitest";
import { manualClock } from "../../clock.js";
import { createKeyward } from "../../keyward/create-keyward.js";
import { memoryStore } from "../../memory/memory-store.js";
import { openapi } from "../openapi/index.js";
import { budgets } from "./index.js";

const start = Date.parse("2026-12-06T23:00:00.000Z"); // a Sunday, one hour before a new day and week
const route = "POST /api/v1/completions";

function setup(config: Parameters<typeof budgets>[0] = {}) {
  const keyward = createKeyward({
    store: memoryStore(),
    scopes: { "completions:write": "Write completions" },
    tiers: { free: { rateLimit: { limit: 10_000, window: "1m" } } },
    clock: manualClock(start),
    jwt: { secret: "a-test-secret-that-is-long-enough-for-hs256-0123456789" },
    logger: false,
    features: [budgets({ sweepInterval: false, ...config }), openapi()],
  });
  const create = (budget: unknown) =>
    keyward.keys.create({
      ownerId: "alice",
      accountTier: "free",
      name: "agent",
      scopes: ["completions:write"],
      tier: "free",
      ...(budget === undefined ? {} : { budget }),
    } as Parameters<typeof keyward.keys.create>[0]);
  const reserve = (key: string, cost: number) =>
    keyward.budgets.reserve(`Bearer ${key}`, { scopes: ["completions:write"], route, cost });
  return { keyward, create, reserve };
}

describe("a key's own budget (the `budget` key field)", () => {
  it("is set on create, shown on the record, charged as a layer, and removed by update with null", async () => {
    const { keyward, create, reserve } = setup();
    const created = await create({ limit: 100, period: "week" });
    expect(created.budget).toEqual({ limit: 100, period: "week" });
    const held = await reserve(created.key, 80);
    expect(held.ok).toBe(true);
    const refused = await reserve(created.key, 30);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.status).toBe(429);
    const usage = await keyward.budgets.usage(created.id);
    expect(usage?.own).toMatchObject({ limit: 100, period: "week", held: 80, left: 20 });
    expect(usage?.key).toBeNull();

    const updated = await keyward.keys.update("alice", created.id, { budget: null } as never);
    expect(updated).not.toHaveProperty("budget");
    expect((await reserve(created.key, 30)).ok).toBe(true);
  });

  it("narrows, never lifts, the operator's budget: both layers are charged", async () => {
    const { create, reserve } = setup({ perKey: { limit: 50, period: "day" } });
    const created = await create({ limit: 1_000_000, period: "month" });
    expect((await reserve(created.key, 50)).ok).toBe(true);
    expect((await reserve(created.key, 1)).ok).toBe(false);
  });

  it.each([
    [{ limit: -1, period: "day" }, ["limit"], "int_type"],
    [{ limit: 1.5, period: "day" }, ["limit"], "int_type"],
    [{ limit: 10, period: "year" }, ["period"], "literal_error"],
    [{ period: "day" }, ["limit"], "missing"],
    [{ limit: 10, period: "day", soft: true }, ["soft"], "extra_forbidden"],
    [null, [], "dict_type"],
  ])("refuses %j with 422 at body.budget%j (%s)", async (budget, path, type) => {
    const { create } = setup();
    const error = await create(budget).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "validation_failed", status: 422 });
    const issues = (error as { detail: { loc: unknown[]; type: string }[] }).detail;
    expect(issues).toContainEqual(
      expect.objectContaining({ loc: ["body", "budget", ...path], type }),
    );
  });

  // The update body's description shows with lifecycle()'s PATCH, which this instance does not list.
  it("is described in the OpenAPI document: the create body and the key record", () => {
    const { keyward } = setup();
    const document = JSON.stringify(keyward.openapi());
    expect(document).toContain("The key's own budget: at most `limit`");
    expect(document).toContain("The key's own budget, when it has one");
  });
});
