import { describe, expect, it } from "vitest";
import { newSlug, type SuiteClient } from "./client.js";
import {
  expectErrorDetail,
  expectJson,
  expectKeyRecord,
  expectStatus,
  expectValidationIssues,
} from "./expectations.js";

/** A `sk_test_` key: 30 random and 6 checksum base62 characters after the prefix. */
const TEST_KEY_PATTERN = /^sk_test_[0-9A-Za-z]{36}$/;

/**
 * Environments (`keys: { environments: { live: "sk_live_", test: "sk_test_" } }`, as the demo contract
 * has them): keys made in `test` carry its prefix and say so on their record; keys made
 * without the field are `live` keys whose records are the contract's.
 */
export function environmentsSuite(client: SuiteClient): void {
  describe("environments", () => {
    it("makes a key in the test environment: sk_test_ secret, environment on its record", async () => {
      const user = await client.newUser();
      const reply = await client.createKey(user.token, {
        ...client.validCreateBody(),
        environment: "test",
      });
      expectJson(reply, 201);
      expect(reply.body.key).toMatch(TEST_KEY_PATTERN);
      expect(reply.body).toMatchObject({
        environment: "test",
        hint: `sk_test_…${reply.body.key.slice(-4)}`,
        status: "active",
      });
      const listed = await client.listKeys(user.token);
      const { key: _secret, ...record } = reply.body;
      expect(listed.body.data).toEqual([record]);
      // The demo's routes take keys of every environment.
      expectStatus(await client.getProfile(reply.body.key, newSlug()), 200);
    });

    it("keeps a rotated key in its environment", async () => {
      const user = await client.newUser();
      const created = await client.createKey(user.token, {
        ...client.validCreateBody(),
        environment: "test",
      });
      const rotated = await client.rotateKey(user.token, created.body.id);
      expectJson(rotated, 200);
      expect(rotated.body.key).toMatch(TEST_KEY_PATTERN);
      expect(rotated.body.environment).toBe("test");
      expectErrorDetail(await client.getProfile(created.body.key, newSlug()), 401);
      expectStatus(await client.getProfile(rotated.body.key, newSlug()), 200);
    });

    it("makes live keys without the field, and names live explicitly: both records the contract's", async () => {
      const user = await client.newUser();
      const implicit = await client.createKey(user.token, client.validCreateBody());
      expectJson(implicit, 201);
      expectKeyRecord(implicit.body, true);
      const explicit = await client.createKey(user.token, {
        ...client.validCreateBody(),
        environment: "live",
      });
      expectJson(explicit, 201);
      expectKeyRecord(explicit.body, true);
    });

    it("refuses an environment that is not configured (422 at body.environment), creating nothing", async () => {
      const user = await client.newUser();
      for (const environment of ["staging", "", 7, null, ["test"]]) {
        const reply = await client.createKey(user.token, {
          ...client.validCreateBody(),
          environment,
        });
        const issues = expectValidationIssues(reply);
        expect(issues.map((issue) => issue.loc)).toEqual([["body", "environment"]]);
      }
      expect((await client.listKeys(user.token)).body.data).toEqual([]);
    });
  });
}
