import { describe, expect, it } from "vitest";
import { type ErrorBody, newSlug, type SuiteClient } from "./client.js";
import {
  expectErrorDetail,
  expectJson,
  expectStatus,
  expectValidationIssues,
} from "./expectations.js";

/**
 * Resource-limited keys (`permissions()`), against an implementation whose host route passes
 * `resource: { [kind]: slug }` on both `GET` and `PUT` (the demo contract v0.3: `{ profile: slug }`).
 */
export function resourcesSuite(
  client: SuiteClient,
  options: { kind: string; keyUpdates: boolean },
): void {
  const { kind } = options;
  describe("resource-limited keys", () => {
    it("admits a key for the resources it lists, on GET and PUT, and lists it with them", async () => {
      const user = await client.newUser();
      const [alice, bob] = [newSlug("alice"), newSlug("bob")];
      const reply = await client.createKey(user.token, {
        ...client.validCreateBody(),
        scopes: [client.contract.readScope, client.contract.writeScope],
        resources: { [kind]: [alice, bob] },
      });
      expectJson(reply, 201);
      expect(reply.body.resources).toEqual({ [kind]: [alice, bob] });
      expectStatus(await client.getProfile(reply.body.key, alice), 200);
      expectStatus(await client.putProfile(reply.body.key, bob), 200);
      const listed = await client.listKeys(user.token);
      expect(listed.body.data[0]?.resources).toEqual({ [kind]: [alice, bob] });
    });

    it("refuses it for any other resource: 403 resource_not_allowed, on GET and PUT", async () => {
      const user = await client.newUser();
      const alice = newSlug("alice");
      const reply = await client.createKey(user.token, {
        ...client.validCreateBody(),
        scopes: [client.contract.readScope, client.contract.writeScope],
        resources: { [kind]: [alice] },
      });
      expectJson(reply, 201);
      for (const refused of [
        await client.getProfile(reply.body.key, newSlug("bob")),
        await client.putProfile(reply.body.key, newSlug("bob")),
      ]) {
        expectErrorDetail(refused, 403);
        expect((refused.body as unknown as ErrorBody).code).toBe("resource_not_allowed");
      }
    });

    it("leaves a key without resources unlimited, its record without the field", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      expect("resources" in key).toBe(false);
      expectStatus(await client.getProfile(key.key, newSlug()), 200);
    });

    it("a session is not limited by resources", async () => {
      const user = await client.newUser();
      expectStatus(await client.getProfile(user.token, newSlug()), 200);
    });

    it("refuses malformed resources on create with 422 at each problem, creating nothing", async () => {
      const user = await client.newUser();
      const reply = await client.createKey(user.token, {
        ...client.validCreateBody(),
        resources: { [kind]: ["ok", "", 7, "ok"] },
      });
      expect(expectValidationIssues(reply).map((issue) => issue.loc)).toEqual([
        ["body", "resources", kind, 1],
        ["body", "resources", kind, 2],
        ["body", "resources", kind, 3],
      ]);
      for (const resources of [[], {}, "alice", { [kind]: "alice" }]) {
        const refused = await client.createKey(user.token, {
          ...client.validCreateBody(),
          resources,
        });
        expect(expectValidationIssues(refused).length).toBeGreaterThan(0);
      }
      expect((await client.listKeys(user.token)).body.data).toEqual([]);
    });

    if (options.keyUpdates) {
      it("narrows resources with PATCH, effective on the next request; widening is 422 and changes nothing", async () => {
        const user = await client.newUser();
        const [alice, bob] = [newSlug("alice"), newSlug("bob")];
        const reply = await client.createKey(user.token, {
          ...client.validCreateBody(),
          resources: { [kind]: [alice, bob] },
        });
        expectJson(reply, 201);
        const { id, key } = reply.body;
        for (const widening of [{ [kind]: [alice, newSlug("carol")] }, { other: ["x"] }, null]) {
          const refused = await client.updateKey(user.token, id, { resources: widening });
          expect(expectValidationIssues(refused).length).toBeGreaterThan(0);
        }
        expectStatus(await client.getProfile(key, bob), 200);
        const narrowed = await client.updateKey(user.token, id, { resources: { [kind]: [alice] } });
        expectJson(narrowed, 200);
        expect(narrowed.body.resources).toEqual({ [kind]: [alice] });
        expectErrorDetail(await client.getProfile(key, bob), 403);
        expectStatus(await client.getProfile(key, alice), 200);
      });

      it("limits a key that had no resources with PATCH", async () => {
        const user = await client.newUser();
        const key = await client.createKeyFor(user);
        const alice = newSlug("alice");
        const limited = await client.updateKey(user.token, key.id, {
          resources: { [kind]: [alice] },
        });
        expectJson(limited, 200);
        expectErrorDetail(await client.getProfile(key.key, newSlug("bob")), 403);
        expectStatus(await client.getProfile(key.key, alice), 200);
      });
    }
  });
}
