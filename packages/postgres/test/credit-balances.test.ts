/**
 * The durable credit balances kept beside Redis (`allowances.saveCredits` / `loadCredits`): saves
 * from many instances arrive in any order, and the newest state of each bucket is the one kept.
 * On a PostgreSQL server and on PGlite.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, type PostgresClient, postgresStore } from "../src/index.js";
import {
  describeOnServer,
  dropSchema,
  serverPool,
  sharedPGlite,
  uniqueSchema,
} from "./support/databases.js";

function balancesSuite(open: () => Promise<{ client: PostgresClient; close(): Promise<void> }>) {
  const schema = uniqueSchema("balances");
  let database: { client: PostgresClient; close(): Promise<void> };
  let store: ReturnType<typeof postgresStore>;

  beforeAll(async () => {
    database = await open();
    await migrate(database.client, { schema });
    store = postgresStore({ client: database.client, schema });
    await store.ready;
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await dropSchema(database.client, schema);
    await database?.close();
  });

  const balances = () => store.allowances;
  const load = async (bucket: string) => (await balances().loadCredits!([bucket])).get(bucket);

  it("keeps the newest state whatever order the saves come in", async () => {
    const save = (state: number[]) => balances().saveCredits!([{ bucket: "credits:a", state }]);
    await save([10, 90, 0]);
    expect(await load("credits:a")).toEqual([10, 90, 0]);
    await save([10, 95, 0]); // an older reply of the same grant: more left
    expect(await load("credits:a")).toEqual([10, 90, 0]);
    await save([10, 80, 0]);
    expect(await load("credits:a")).toEqual([10, 80, 0]);
    await save([5, 1, 0]); // an earlier grant
    expect(await load("credits:a")).toEqual([10, 80, 0]);
    await save([20, 500, 0]); // a new grant: more, and still newer
    expect(await load("credits:a")).toEqual([20, 500, 0]);
  });

  it("takes a later refill period over a lower balance of an earlier one", async () => {
    const save = (state: number[]) => balances().saveCredits!([{ bucket: "credits:r", state }]);
    const november = Date.UTC(2026, 10, 1);
    const december = Date.UTC(2026, 11, 1);
    await save([1, 3, november]);
    await save([1, 49, december]);
    expect(await load("credits:r")).toEqual([1, 49, december]);
    await save([1, 2, november]);
    expect(await load("credits:r")).toEqual([1, 49, december]);
  });

  it("saves many buckets in one call, the newest of each when one comes twice", async () => {
    await balances().saveCredits!([
      { bucket: "credits:m1", state: [1, 7, 0] },
      { bucket: "credits:m2", state: [1, 8, 0] },
      { bucket: "credits:m1", state: [1, 6, 0] },
    ]);
    const loaded = await balances().loadCredits!(["credits:m1", "credits:m2", "credits:none"]);
    expect([...loaded].sort()).toEqual([
      ["credits:m1", [1, 6, 0]],
      ["credits:m2", [1, 8, 0]],
    ]);
  });

  it("saves every other bucket when one state is beyond bigint (1e20, 1e308, a fraction)", async () => {
    // Each bad state once failed the whole statement, every second, and so every bucket's save.
    await balances().saveCredits!([
      { bucket: "credits:huge", state: [1, -1e20, 0] },
      { bucket: "credits:ok1", state: [1, 41, 0] },
      { bucket: "credits:inf", state: [1, 1e308, 0] },
      { bucket: "credits:half", state: [1, 0.5, 0] },
      { bucket: "credits:ok2", state: [1, 42, 0] },
    ]);
    const loaded = await balances().loadCredits!([
      "credits:huge",
      "credits:ok1",
      "credits:inf",
      "credits:half",
      "credits:ok2",
    ]);
    expect([...loaded].sort()).toEqual([
      ["credits:ok1", [1, 41, 0]],
      ["credits:ok2", [1, 42, 0]],
    ]);
  });

  it("replaces the placeholder a quota-and-credits transaction leaves, and loads no placeholder", async () => {
    // `consume` of the allowance store locks a new row with '{}' before writing it.
    const now = Date.UTC(2026, 10, 27);
    await balances().consume({
      owner: "user:o",
      now,
      layers: [{ layer: "credits", bucket: "credits:p", cost: 5, remaining: 5, grantedAt: 1 }],
    });
    expect(await load("credits:p")).toEqual([1, 0, 0]);
    await database.client.query(
      `UPDATE "${schema}".keyward_allowances SET state = '{}' WHERE bucket = 'credits:p'`,
    );
    expect(await load("credits:p")).toBeUndefined();
    await balances().saveCredits!([{ bucket: "credits:p", state: [1, 4, 0] }]);
    expect(await load("credits:p")).toEqual([1, 4, 0]);
  });
}

describeOnServer("durable credit balances on a PostgreSQL server", () => {
  balancesSuite(async () => {
    const pool = serverPool({ max: 4 });
    return { client: pool, close: () => pool.end() };
  });
});

describe("durable credit balances on PGlite", () => {
  balancesSuite(async () => {
    const pglite = sharedPGlite();
    return { client: await pglite.get(), close: () => pglite.close() };
  });
});
