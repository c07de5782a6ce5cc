/**
 * `postgresLedger`'s writes grouped per turn of the event loop (addition-batcher.ts), on the real
 * PostgreSQL: concurrent requests' additions become one statement with the windows' sums; a failed
 * statement fails every request in it; two instances adding to the same rows in opposite orders at
 * once never deadlock (the rows are written in one order).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LedgerAddition, postgresLedger } from "../src/index.js";
import { dropSchema, testPool, uniqueSchema } from "./support/postgres.js";

const window = Date.parse("2026-12-01T10:00:00.000Z");
const pool = testPool(8);
const schema = uniqueSchema("batch");
/** A deadline far above a loaded machine's slowest answer: these writes must succeed. */
const timeoutMs = 30_000;

beforeAll(async () => {
  await postgresLedger({ client: pool, schema }).migrate();
}, 60_000);
afterAll(async () => {
  await dropSchema(pool, schema);
  await pool.end();
});

const totalsOf = async (ledger: ReturnType<typeof postgresLedger>, ownerId: string) =>
  Object.fromEntries(
    (await ledger.totals(0, Number.MAX_SAFE_INTEGER))
      .filter((row) => row.ownerId === ownerId)
      .map((row) => [row.meter, row.total]),
  );

describe("postgresLedger, writes grouped per turn", () => {
  it("writes the additions of concurrent requests as one statement, each window's sum", async () => {
    const statements: string[] = [];
    const client = {
      query: (text: string, params?: unknown[]) => {
        statements.push(text);
        return pool.query(text, params);
      },
    };
    const ledger = postgresLedger({ client, schema, timeoutMs });
    const adds = Array.from({ length: 40 }, (_, index) =>
      ledger.add([
        { ownerId: "grouped", meter: "requests", windowStart: window, amount: 1 },
        ...(index % 4 === 0
          ? [{ ownerId: "grouped", meter: "credits", windowStart: window, amount: 5 }]
          : []),
      ]),
    );
    await Promise.all(adds);
    expect(statements.filter((text) => text.includes("INSERT"))).toHaveLength(1);
    expect(await totalsOf(ledger, "grouped")).toEqual({ requests: 40, credits: 50 });
    // A later request is a statement of its own.
    await ledger.add([{ ownerId: "grouped", meter: "requests", windowStart: window, amount: 1 }]);
    expect(statements.filter((text) => text.includes("INSERT"))).toHaveLength(2);
    expect(await totalsOf(ledger, "grouped")).toEqual({ requests: 41, credits: 50 });
  });

  it("a statement that fails fails every request it carried, and writes none of them", async () => {
    const failing = {
      query: (text: string, params?: unknown[]) =>
        text.includes("INSERT")
          ? Promise.reject(new Error("connection terminated"))
          : pool.query(text, params),
    };
    const ledger = postgresLedger({ client: failing, schema, timeoutMs });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () =>
        ledger.add([{ ownerId: "failed", meter: "requests", windowStart: window, amount: 1 }]),
      ),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(5).fill("rejected"));
    expect(await totalsOf(postgresLedger({ client: pool, schema }), "failed")).toEqual({});
  });

  it("two instances adding to the same rows in opposite orders at once: no deadlock, exact sums", async () => {
    const pools = [testPool(4), testPool(4)];
    const [first, second] = pools.map((client) => postgresLedger({ client, schema, timeoutMs }));
    const rows = (owners: string[]): LedgerAddition[] =>
      owners.map((ownerId) => ({ ownerId, meter: "requests", windowStart: window, amount: 1 }));
    const forward = ["lock-a", "lock-b", "lock-c", "lock-d"];
    const backward = [...forward].reverse();
    const turns = 30;
    for (let turn = 0; turn < turns; turn++) {
      await Promise.all([
        ...Array.from({ length: 4 }, () => first!.add(rows(forward))),
        ...Array.from({ length: 4 }, () => second!.add(rows(backward))),
      ]);
    }
    await Promise.all(pools.map((client) => client.end()));
    const totals = await postgresLedger({ client: pool, schema }).totals(
      0,
      Number.MAX_SAFE_INTEGER,
    );
    for (const ownerId of forward) {
      expect(totals.find((row) => row.ownerId === ownerId)?.total).toBe(turns * 8);
    }
  }, 60_000);
});
