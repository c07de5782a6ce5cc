/**
 * What the verification-cache tests share (cache.test.ts asserts that a change is seen,
 * cache.timing.test.ts how soon): stores closed after each test, and the delay until another
 * store's cache refuses a revoked or rotated secret.
 */
import { fakeHash, storedKey } from "@keyward/testing";
import { afterEach, expect } from "vitest";
import type { PostgresStore } from "../../src/index.js";
import { waitFor } from "./databases.js";

/** Stores and channels a test opened, closed after it even when it fails (a LISTEN left open would hold its pool). */
const openedThings: { close(): Promise<void> }[] = [];

/** Closes after each test of the calling file what `opened` and `closeAfterTest` registered. */
export function closeOpenedAfterEach(): void {
  afterEach(async () => {
    for (const thing of openedThings.splice(0)) await thing.close().catch(() => {});
  });
}

export function closeAfterTest(thing: { close(): Promise<void> }): void {
  openedThings.push(thing);
}

export async function opened(store: PostgresStore): Promise<PostgresStore> {
  openedThings.push(store);
  await store.ready;
  return store;
}

/** Revokes or rotates through `a` and resolves to the ms until `b` refuses the old secret. */
export async function evictionDelay(
  a: PostgresStore,
  b: PostgresStore,
  change: "revoke" | "rotate",
): Promise<number> {
  const key = storedKey();
  await a.keys.create(key);
  expect((await b.keys.findByHash(key.secretHash))?.id).toBe(key.id);
  expect((await b.keys.findByHash(key.secretHash))?.id).toBe(key.id); // now served from b's cache
  const refused = async () => {
    const found = await b.keys.findByHash(key.secretHash);
    return found === null || found.revokedAt !== null;
  };
  expect(await refused()).toBe(false);
  if (change === "revoke") {
    await a.keys.revoke(key.id, Date.now());
  } else {
    await a.keys.rotate({
      id: key.id,
      expectedHash: key.secretHash,
      secretHash: fakeHash(),
      hint: "h",
      rotatedAt: Date.now(),
    });
  }
  return waitFor(refused, 2_000);
}
