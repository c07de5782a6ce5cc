import type { KeyRecord } from "@keyward/core";
import { describe, expect, it } from "vitest";
import { newSlug, type SuiteClient } from "./client.js";
import {
  eventually,
  expectErrorDetail,
  expectIsoTime,
  expectJson,
  expectKeyRecord,
  expectStatus,
  sleep,
} from "./expectations.js";

const withoutSecret = ({ key: _secret, ...record }: KeyRecord & { key: string }): KeyRecord =>
  record;
const utcDate = (epochMs = Date.now()) => new Date(epochMs).toISOString().slice(0, 10);

/** The six key-management endpoints on their happy paths: statuses, shapes and effects. */
export function managementSuite(client: SuiteClient): void {
  const contract = client.contract;
  // A scope besides the read scope, from the other end of the list than `otherScope`, so that
  // records are seen to keep scopes that are not next to each other in the configuration.
  const lastOtherScope = contract.unrelatedScopes.at(-1) ?? contract.writeScope;
  describe("key management", () => {
    it("POST creates a key: 201 with the record and the full secret, once", async () => {
      const user = await client.newUser(contract.secondTier.name);
      const before = Date.now();
      const reply = await client.createKey(user.token, {
        name: "CI deploys",
        scopes: [contract.readScope, lastOtherScope],
        tier: contract.secondTier.name,
      });
      expectJson(reply, 201);
      expectKeyRecord(reply.body, true);
      expect(reply.body).toMatchObject({
        name: "CI deploys",
        scopes: [contract.readScope, lastOtherScope],
        tier: contract.secondTier.name,
        status: "active",
        expiresAt: null,
        lastUsedAt: null,
        revokedAt: null,
      });
      // Allows for a server clock a little off the suite's.
      const createdAt = Date.parse(reply.body.createdAt);
      expect(createdAt).toBeGreaterThanOrEqual(before - 60_000);
      expect(createdAt).toBeLessThanOrEqual(Date.now() + 60_000);
    });

    it("POST keeps the expiry it was given and ignores unknown fields", async () => {
      const user = await client.newUser();
      const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
      const reply = await client.createKey(user.token, {
        name: "expiring",
        scopes: [contract.otherScope],
        tier: contract.lowestTier.name,
        expiresAt,
        owner: "someone-else",
        status: "revoked",
      });
      expectJson(reply, 201);
      expectKeyRecord(reply.body, true);
      expect(Date.parse(reply.body.expiresAt!)).toBe(Date.parse(expiresAt));
      expect(reply.body.status).toBe("active");
    });

    it("POST issues a different id and secret for every key", async () => {
      const user = await client.newUser();
      const first = await client.createKeyFor(user);
      const second = await client.createKeyFor(user);
      expect(second.id).not.toBe(first.id);
      expect(second.key).not.toBe(first.key);
    });

    it("GET lists only the caller's keys, newest first, never with a secret", async () => {
      const user = await client.newUser();
      const created = [];
      for (const name of ["first", "second", "third"]) {
        created.push(await client.createKeyFor(user, { name }));
        // Keeps creation times distinct, so "newest first" has one right answer.
        await sleep(15);
      }
      const someoneElse = await client.newUser();
      const foreign = await client.createKeyFor(someoneElse);

      const reply = await client.listKeys(user.token);
      expectJson(reply, 200);
      expect(Object.keys(reply.body)).toEqual(["data"]);
      for (const record of reply.body.data) expectKeyRecord(record, false);
      expect(reply.body.data).toEqual(created.reverse().map(withoutSecret));
      for (const key of [...created, foreign]) expect(reply.text).not.toContain(key.key);
      expect(reply.text).not.toContain(foreign.id);

      const fresh = await client.listKeys((await client.newUser()).token);
      expectJson(fresh, 200);
      expect(fresh.body).toEqual({ data: [] });
    });

    it("GET /scopes lists the demo scopes, each with a description", async () => {
      const user = await client.newUser();
      const reply = await client.listScopes(user.token);
      expectJson(reply, 200);
      expect(Object.keys(reply.body)).toEqual(["data"]);
      for (const scope of reply.body.data) {
        expect(scope).toEqual({ name: expect.any(String), description: expect.any(String) });
        expect(scope.description.length).toBeGreaterThan(0);
      }
      expect(reply.body.data.map((scope) => scope.name).sort()).toEqual(
        [...contract.scopes].sort(),
      );
    });

    it("POST /rotate issues a new secret for the same key; the old one fails at once", async () => {
      const user = await client.newUser();
      const original = await client.createKeyFor(user, {
        name: "rotating",
        scopes: [contract.readScope],
      });
      expectStatus(await client.getProfile(original.key, newSlug()), 200);

      const reply = await client.rotateKey(user.token, original.id);
      expectJson(reply, 200);
      expectKeyRecord(reply.body, true);
      const rotated = reply.body as typeof original;
      expect(rotated.key).not.toBe(original.key);
      expect(reply.text).not.toContain(original.key);
      expect(rotated).toMatchObject({
        id: original.id,
        name: "rotating",
        scopes: [contract.readScope],
        tier: contract.lowestTier.name,
        status: "active",
        createdAt: original.createdAt,
        expiresAt: null,
        revokedAt: null,
      });

      expectErrorDetail(await client.getProfile(original.key, newSlug()), 401);
      expectStatus(await client.getProfile(rotated.key, newSlug()), 200);
      const listed = await client.listKeys(user.token);
      expect(listed.body.data.map((key) => key.id)).toEqual([original.id]);
      expect(listed.body.data[0]!.hint).toBe(rotated.hint);
    });

    it("concurrent rotations leave exactly one working secret", async () => {
      const user = await client.newUser();
      const original = await client.createKeyFor(user, { scopes: [contract.readScope] });
      const replies = await Promise.all(
        [1, 2, 3].map(() => client.rotateKey(user.token, original.id)),
      );
      for (const reply of replies)
        expect([200, 409], `got ${reply.status} ${reply.text}`).toContain(reply.status);
      const issued = replies.filter((reply) => reply.status === 200).map((reply) => reply.body.key);
      expect(issued.length).toBeGreaterThan(0);

      const working = [];
      for (const secret of [original.key, ...issued]) {
        const reply = await client.getProfile(secret, newSlug());
        expect([200, 401]).toContain(reply.status);
        if (reply.status === 200) working.push(secret);
      }
      expect(working).toHaveLength(1);
    });

    it("GET /usage of an unused key reports nothing yet", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      const reply = await client.keyUsage(user.token, key.id);
      expectJson(reply, 200);
      expect(reply.body).toEqual({
        keyId: key.id,
        totalRequests: 0,
        lastUsedAt: null,
        endpoints: [],
        daily: [],
      });
    });

    it("GET /usage counts requests by route template and by UTC day", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user, { scopes: [contract.readScope] });
      const dayBefore = utcDate();
      const start = Date.now();
      for (const slug of ["alice-1", "bob-2", "alice-1"]) {
        expectStatus(await client.getProfile(key.key, slug), 200);
      }
      const dayAfter = utcDate();

      await eventually(async () => {
        const reply = await client.keyUsage(user.token, key.id);
        expectJson(reply, 200);
        const usage = reply.body;
        // And `lastUsedAddress` where the implementation records addresses (the option's checks).
        const { lastUsedAddress: _address, ...contractFields } = usage;
        expect(Object.keys(contractFields).sort()).toEqual([
          "daily",
          "endpoints",
          "keyId",
          "lastUsedAt",
          "totalRequests",
        ]);
        expect(usage).toMatchObject({ keyId: key.id, totalRequests: 3 });
        expect(usage.endpoints).toEqual([{ method: "GET", route: contract.route, count: 3 }]);
        expect(reply.text).not.toContain("alice-1");
        for (const day of usage.daily) {
          expect(Object.keys(day).sort()).toEqual(["count", "date"]);
          expect([dayBefore, dayAfter]).toContain(day.date);
        }
        expect(usage.daily.reduce((sum, day) => sum + day.count, 0)).toBe(3);
        if (dayBefore === dayAfter) expect(usage.daily).toEqual([{ date: dayBefore, count: 3 }]);
        const lastUsedAt = expectIsoTime(usage.lastUsedAt, "lastUsedAt");
        expect(lastUsedAt).toBeGreaterThanOrEqual(start - 60_000);
        expect(lastUsedAt).toBeLessThanOrEqual(Date.now() + 60_000);
        expect(reply.text).not.toContain(key.key);
      });

      const listed = await client.listKeys(user.token);
      expect(listed.body.data[0]!.lastUsedAt).not.toBeNull();
    });

    it("GET /usage counts each method of a route separately", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user, {
        scopes: [contract.readScope, contract.writeScope],
      });
      expectStatus(await client.getProfile(key.key, newSlug()), 200);
      expectStatus(await client.putProfile(key.key, newSlug()), 200);
      expectStatus(await client.putProfile(key.key, newSlug()), 200);
      await eventually(async () => {
        const usage = (await client.keyUsage(user.token, key.id)).body;
        expect(usage.totalRequests).toBe(3);
        expect(usage.endpoints).toHaveLength(2);
        expect(usage.endpoints).toEqual(
          expect.arrayContaining([
            { method: "GET", route: contract.route, count: 1 },
            { method: "PUT", route: contract.route, count: 2 },
          ]),
        );
      });
    });

    it("usage survives rotation", async () => {
      const user = await client.newUser();
      const original = await client.createKeyFor(user, { scopes: [contract.readScope] });
      expectStatus(await client.getProfile(original.key, newSlug()), 200);
      expectStatus(await client.getProfile(original.key, newSlug()), 200);
      const rotated = (await client.rotateKey(user.token, original.id)).body;
      expectStatus(await client.getProfile(rotated.key, newSlug()), 200);
      await eventually(async () => {
        const usage = (await client.keyUsage(user.token, original.id)).body;
        expect(usage.keyId).toBe(original.id);
        expect(usage.totalRequests).toBe(3);
        expect(usage.endpoints).toEqual([{ method: "GET", route: contract.route, count: 3 }]);
      });
    });

    it("DELETE revokes for good: 200 {id, status, revokedAt}; the key fails and still lists", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user, {
        scopes: [contract.readScope, contract.writeScope],
      });
      expectStatus(await client.getProfile(key.key, newSlug()), 200);

      const reply = await client.revokeKey(user.token, key.id);
      expectJson(reply, 200);
      expect(Object.keys(reply.body).sort()).toEqual(["id", "revokedAt", "status"]);
      expect(reply.body).toMatchObject({ id: key.id, status: "revoked" });
      const revokedAt = expectIsoTime(reply.body.revokedAt, "revokedAt");
      expect(revokedAt).toBeGreaterThanOrEqual(Date.parse(key.createdAt));

      expectErrorDetail(await client.getProfile(key.key, newSlug()), 401);
      expectErrorDetail(await client.putProfile(key.key, newSlug()), 401);

      const listed = await client.listKeys(user.token);
      expectJson(listed, 200);
      expect(listed.body.data).toHaveLength(1);
      expect(listed.body.data[0]).toMatchObject({
        id: key.id,
        status: "revoked",
        revokedAt: reply.body.revokedAt,
      });
    });
  });
}
