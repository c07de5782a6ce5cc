import { describe, expect, it } from "vitest";
import { newSlug, type Reply, type SuiteClient } from "./client.js";
import {
  expectErrorDetail,
  expectJson,
  expectStatus,
  expectValidationIssues,
  issueAt,
} from "./expectations.js";
import type { HttpSuiteOptions } from "./options.js";

const sevenDays = 7 * 24 * 60 * 60;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `POST {basePath}/{key_id}/rotate` with `{ "gracePeriodSeconds": n }` (`gracefulRotation`): both
 * secrets work until the deadline, another rotation or a revocation ends the grace at once, and a
 * bad grace is a 422 that changes nothing.
 */
export function gracefulRotationSuite(client: SuiteClient, options: HttpSuiteOptions): void {
  const max =
    typeof options.gracefulRotation === "object"
      ? options.gracefulRotation.maxGracePeriodSeconds
      : sevenDays;
  const works = async (secret: string) =>
    expectStatus(await client.getProfile(secret, newSlug()), 200);
  const fails = async (secret: string, detail: string) =>
    expect(expectErrorDetail(await client.getProfile(secret, newSlug()), 401)).toBe(detail);

  describe("graceful rotation", () => {
    it("keeps the old secret working through the grace, counting both secrets' requests to the one key", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      const before = Date.now();
      const rotated = await client.rotateKey(user.token, key.id, { gracePeriodSeconds: 3600 });
      expectJson(rotated, 200);
      expect(rotated.body).toMatchObject({ id: key.id, status: "active" });
      expect(rotated.body.key).not.toBe(key.key);
      const deadline = Date.parse(rotated.body.previousSecretExpiresAt ?? "");
      // Server and suite clocks may differ a little; the grace is measured from the rotation.
      expect(deadline).toBeGreaterThan(before + 3_590_000);
      expect(deadline).toBeLessThan(Date.now() + 3_610_000);
      await works(key.key);
      await works(rotated.body.key);
      await works(key.key);
      const usage = await client.keyUsage(user.token, key.id);
      expectJson(usage, 200);
      expect(usage.body.totalRequests).toBe(3);
      // The list shows the same record, deadline included; never a secret.
      const listed = await client.listKeys(user.token);
      const { key: _secret, lastUsedAt: _notYet, ...record } = rotated.body;
      expect(listed.body.data).toHaveLength(1);
      // And the use's address where the implementation records one (the `lastUsedAddress` checks).
      const { lastUsedAddress: _address, ...shown } = listed.body.data[0]!;
      expect(shown).toEqual({ ...record, lastUsedAt: expect.any(String) });
    });

    it("ends the grace at once when the key is rotated again: only the newest secret works", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      const first = await client.rotateKey(user.token, key.id, { gracePeriodSeconds: 3600 });
      expectJson(first, 200);
      await works(key.key);
      // Another graceful rotation: the first secret is gone, the second is in its grace.
      const second = await client.rotateKey(user.token, key.id, { gracePeriodSeconds: 3600 });
      expectJson(second, 200);
      await fails(key.key, "Invalid API key");
      await works(first.body.key);
      await works(second.body.key);
      // A rotation without grace (no body, as in v0.1) cuts every earlier secret off.
      const third = await client.rotateKey(user.token, key.id);
      expectJson(third, 200);
      expect(third.body).not.toHaveProperty("previousSecretExpiresAt");
      await fails(first.body.key, "Invalid API key");
      await fails(second.body.key, "Invalid API key");
      await works(third.body.key);
    });

    it("ends the grace at once when the key is revoked: both secrets answer 401", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      const rotated = await client.rotateKey(user.token, key.id, { gracePeriodSeconds: 3600 });
      expectJson(rotated, 200);
      await works(key.key);
      expectJson(await client.revokeKey(user.token, key.id), 200);
      await fails(key.key, "API key has been revoked");
      await fails(rotated.body.key, "API key has been revoked");
      const listed = await client.listKeys(user.token);
      expect(listed.body.data[0]).toMatchObject({ status: "revoked" });
      expect(listed.body.data[0]).not.toHaveProperty("previousSecretExpiresAt");
    });

    it("takes a grace of 0 and an empty object as the immediate cut-off", async () => {
      const user = await client.newUser();
      for (const body of [{ gracePeriodSeconds: 0 }, {}]) {
        const key = await client.createKeyFor(user);
        const rotated = await client.rotateKey(user.token, key.id, body);
        expectJson(rotated, 200);
        expect(rotated.body).not.toHaveProperty("previousSecretExpiresAt");
        await fails(key.key, "Invalid API key");
        await works(rotated.body.key);
      }
    });

    it("refuses a bad grace with 422 and rotates nothing", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      const loc = (reply: Reply) =>
        issueAt(expectValidationIssues(reply), ["body", "gracePeriodSeconds"]);
      for (const grace of [-1, 1.5, "60", null, true, max + 1]) {
        loc(await client.rotateKey(user.token, key.id, { gracePeriodSeconds: grace }));
      }
      expect(
        loc(await client.rotateKey(user.token, key.id, { gracePeriodSeconds: max + 1 })).msg,
      ).toContain(String(max));
      for (const body of [[], "text", 42]) {
        issueAt(expectValidationIssues(await client.rotateKey(user.token, key.id, body)), ["body"]);
      }
      const malformed = await client.send("POST", `${client.basePath}/${key.id}/rotate`, {
        token: user.token,
        body: "{not json",
      });
      expectErrorDetail(malformed, 400);
      // Nothing was rotated: the original secret is still the only one.
      await works(key.key);
      const listed = await client.listKeys(user.token);
      expect(listed.body.data[0]).toMatchObject({ hint: key.hint });
      expect(listed.body.data[0]).not.toHaveProperty("previousSecretExpiresAt");
      // Checked before the key: another user's key gets the 422 too, and still rotates nothing.
      const other = await client.newUser();
      loc(await client.rotateKey(other.token, key.id, { gracePeriodSeconds: -5 }));
      expectErrorDetail(
        await client.rotateKey(other.token, key.id, { gracePeriodSeconds: 60 }),
        403,
      );
      await works(key.key);
    });

    it.skipIf(options.skipSlow)(
      "turns the old secret away once the grace has run out",
      async () => {
        const user = await client.newUser();
        const key = await client.createKeyFor(user);
        const rotated = await client.rotateKey(user.token, key.id, { gracePeriodSeconds: 1 });
        expectJson(rotated, 200);
        const deadline = Date.parse(rotated.body.previousSecretExpiresAt ?? "");
        await works(key.key);
        await sleep(deadline - Date.now() + 250);
        await fails(key.key, "Invalid API key");
        await works(rotated.body.key);
        const listed = await client.listKeys(user.token);
        expect(listed.body.data[0]).not.toHaveProperty("previousSecretExpiresAt");
      },
      15_000,
    );
  });
}
