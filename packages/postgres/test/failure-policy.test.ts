/**
 * The store's failure policy where no fault is needed to see it: its options are checked, and the
 * database's answers to bad statements (a duplicate, say) never open the circuit, which would
 * otherwise let one client's bad input take the store down for everyone.
 *
 * The options are checked before the store touches its client, so that test needs no database.
 * PGlite starts once, before the test that needs it, with no time limit: its start is local,
 * finite work (a WebAssembly PostgreSQL booting, 20 to 35 s on a busy two-core host, which once
 * ran past the test's 20 s), so a limit there could only measure the machine.
 */

import type { PGlite } from "@electric-sql/pglite";
import { storedKey } from "@keyward/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, type PostgresClient, postgresStore } from "../src/index.js";
import { sharedPGlite, uniqueSchema } from "./support/databases.js";

/** A client the option checks never reach: they throw before the store makes any call. */
const unused: PostgresClient = {
  query: () => Promise.reject(new Error("the option checks must not query")),
};

describe("postgresStore's options", () => {
  it("checks timeoutMs and circuitBreaker", () => {
    const client = unused;
    expect(() => postgresStore({ client, timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => postgresStore({ client, timeoutMs: Number.NaN })).toThrow(/timeoutMs/);
    expect(() => postgresStore({ client, circuitBreaker: { failureThreshold: 0 } })).toThrow(
      /failureThreshold/,
    );
  });
});

describe("postgresStore's failure policy", () => {
  const pglite = sharedPGlite();
  let client: PGlite;
  beforeAll(async () => {
    client = await pglite.get();
  }, 0);
  afterAll(() => pglite.close());

  it("does not open the circuit on the database's answers", async () => {
    const schema = uniqueSchema("policy");
    await migrate(client, { schema });
    const errors: unknown[] = [];
    const store = postgresStore({
      client,
      schema,
      cache: false,
      circuitBreaker: { failureThreshold: 1, retryIntervalMs: 60_000 },
      onError: (e) => errors.push(e),
    });
    const key = storedKey();
    await store.keys.create(key);
    // A duplicate id, twice: each is the database's answer (a unique violation), passed on as is.
    for (let i = 0; i < 2; i++) {
      await expect(store.keys.create(key)).rejects.toMatchObject({ code: "23505" });
    }
    expect(errors).toEqual([]);
    // The circuit is closed: the next call is sent and answered.
    expect((await store.keys.findById(key.id))?.id).toBe(key.id);
    await store.close();
  });
});
