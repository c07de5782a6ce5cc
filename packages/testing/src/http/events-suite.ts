import type { KeywardEvent } from "@keyward/core";
import { describe, expect, it } from "vitest";
import type { Reply, SuiteClient, TestUser } from "./client.js";
import {
  expectErrorDetail,
  expectIsoTime,
  expectJson,
  expectValidationIssues,
} from "./expectations.js";
import type { HttpSuiteOptions } from "./options.js";

interface EventPage {
  data: KeywardEvent[];
  nextCursor: string | null;
}

const eventIdPattern = /^evt_[0-9A-Za-z]{24}$/;

/**
 * `GET {basePath}/{key_id}/events` (`events`): a key's audit log, newest first, one event per
 * change with who made it, never a secret; the usage endpoint's permissions; bad queries refused.
 */
export function eventsSuite(client: SuiteClient, options: HttpSuiteOptions): void {
  const { contract } = client;
  const eventsOf = (token: string, keyId: string, query = "") =>
    client.send<EventPage>(
      "GET",
      `${client.basePath}/${encodeURIComponent(keyId)}/events${query}`,
      {
        token,
      },
    );
  const types = (reply: Reply<EventPage>) => reply.body.data.map((event) => event.type);

  describe("events", () => {
    it("lists a key's changes newest first, each with its actor, and no secret", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      const rotated = await client.rotateKey(user.token, key.id);
      expectJson(rotated, 200);
      const expected = ["key.rotated", "key.created"];
      if (options.keyUpdates) {
        expectJson(await client.updateKey(user.token, key.id, { name: "renamed" }), 200);
        expectJson(await client.updateKey(user.token, key.id, { enabled: false }), 200);
        expectJson(await client.updateKey(user.token, key.id, { enabled: true }), 200);
        expected.unshift("key.enabled", "key.disabled", "key.updated");
      }
      expectJson(await client.revokeKey(user.token, key.id), 200);
      expected.unshift("key.revoked");

      // A revoked key's history stays readable.
      const reply = await eventsOf(user.token, key.id);
      expectJson(reply, 200);
      expect(Object.keys(reply.body).sort()).toEqual(["data", "nextCursor"]);
      expect(reply.body.nextCursor).toBeNull();
      // Changes within one millisecond list in id order, which is random: compare as sets, then
      // by time below (newest first, the creation no later than any other change).
      expect([...types(reply)].sort()).toEqual([...expected].sort());
      for (const event of reply.body.data) {
        expect(event.id).toMatch(eventIdPattern);
        expect(event.keyId).toBe(key.id);
        expect(event.owner).toEqual({ type: "user", id: user.id });
        expect(event.actor).toEqual({ type: "user", id: user.id });
        expectIsoTime(event.occurredAt, "occurredAt");
      }
      const times = reply.body.data.map((event) => Date.parse(event.occurredAt));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      const created = reply.body.data.find((event) => event.type === "key.created")!;
      expect(Math.min(...times)).toBe(Date.parse(created.occurredAt));
      expect(created.data).toMatchObject({
        name: "conformance key",
        tier: contract.lowestTier.name,
        hint: key.hint,
      });
      const rotation = reply.body.data.find((event) => event.type === "key.rotated")!;
      expect(rotation.data).toEqual({ previousHint: key.hint, hint: rotated.body.hint });
      for (const secret of [key.key, rotated.body.key]) expect(reply.text).not.toContain(secret);
    });

    it("pages with limit and cursor, and keeps only the types asked for", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      for (let i = 0; i < 3; i++) expectJson(await client.rotateKey(user.token, key.id), 200);
      const all = await eventsOf(user.token, key.id);
      expect(all.body.data).toHaveLength(4);
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 3; pages++) {
        const query: string =
          cursor === null ? "?limit=2" : `?limit=2&cursor=${encodeURIComponent(cursor)}`;
        const page = await eventsOf(user.token, key.id, query);
        expectJson(page, 200);
        seen.push(...page.body.data.map((event) => event.id));
        cursor = page.body.nextCursor;
        if (cursor === null) break;
      }
      expect(seen).toEqual(all.body.data.map((event) => event.id));
      expect(cursor).toBeNull();

      const rotations = await eventsOf(user.token, key.id, "?types=key.rotated");
      expect(types(rotations)).toEqual(["key.rotated", "key.rotated", "key.rotated"]);
      const both = await eventsOf(user.token, key.id, "?types=key.created,key.revoked");
      expect(types(both)).toEqual(["key.created"]);
      const repeated = await eventsOf(user.token, key.id, "?types=key.created&types=key.rotated");
      expect(repeated.body.data).toHaveLength(4);
    });

    it("refuses bad queries at once (422) before looking at the key", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      const reply = await eventsOf(user.token, key.id, "?limit=0&cursor=%25%25&types=key.exploded");
      const locs = expectValidationIssues(reply).map((issue) => JSON.stringify(issue.loc));
      expect(locs.sort()).toEqual(
        ['["query","cursor"]', '["query","limit"]', '["query","types",0]'].sort(),
      );
      for (const query of ["?limit=1001", "?limit=two", "?cursor=bm90LWEtY3Vyc29y"]) {
        expectValidationIssues(await eventsOf(user.token, key.id, query));
      }
    });

    it("answers 404 for an unknown key and 403 for another user's, as usage does", async () => {
      const owner = await client.newUser();
      const other = await client.newUser();
      const key = await client.createKeyFor(owner);
      expectErrorDetail(await eventsOf(other.token, key.id), 403);
      expectErrorDetail(await eventsOf(owner.token, "key_doesNotExist000000000000"), 404);
      expectErrorDetail(await eventsOf(key.key, key.id), 403);
      const anonymous = await client.send("GET", `${client.basePath}/${key.id}/events`);
      expectErrorDetail(anonymous, 401);
    });

    if (options.organizations) {
      it("lets an organization's members read its keys' events; others get 403", async () => {
        const organizationId = `org_${crypto.randomUUID()}`;
        const tier = contract.highestTier.name;
        const member = (role: string): Promise<TestUser> =>
          client.newUser(tier, { orgs: [{ id: organizationId, role, tier }] });
        const admin = await member("admin");
        const reader = await member("member");
        const outsider = await client.newUser(tier);
        const created = await client.createKey(admin.token, {
          name: "team key",
          scopes: [contract.readScope],
          tier: contract.lowestTier.name,
          organizationId,
        });
        expectJson(created, 201);
        const reply = await eventsOf(reader.token, created.body.id);
        expectJson(reply, 200);
        expect(reply.body.data).toHaveLength(1);
        expect(reply.body.data[0]).toMatchObject({
          type: "key.created",
          owner: { type: "organization", id: organizationId },
          actor: { type: "user", id: admin.id },
          data: { createdBy: admin.id },
        });
        expectErrorDetail(await eventsOf(outsider.token, created.body.id), 403);
      });
    }
  });
}
