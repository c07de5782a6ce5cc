import { describe, expect, it } from "vitest";
import { newSlug, type Reply, type SuiteClient } from "./client.js";
import {
  expectErrorDetail,
  expectJson,
  expectKeyRecord,
  expectStatus,
  expectValidationIssues,
  issueAt,
} from "./expectations.js";

/** `PATCH {basePath}/{key_id}` (`keyUpdates`): rename, metadata, disable and enable, narrow scopes. */
export function lifecycleSuite(client: SuiteClient): void {
  const { contract } = client;
  const issueLocs = (reply: Reply) =>
    expectValidationIssues(reply).map((issue) => JSON.stringify(issue.loc));

  describe("key updates (PATCH)", () => {
    it("renames a key and sets its metadata: 200 with the record, which lists the same", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      const metadata = { team: "payments", tags: ["ci"], build: { number: 42 } };
      const reply = await client.updateKey(user.token, key.id, { name: "  renamed  ", metadata });
      expectJson(reply, 200);
      const { metadata: returned, ...record } = reply.body;
      expectKeyRecord(record, false);
      expect(returned).toEqual(metadata);
      expect(reply.body).toMatchObject({ id: key.id, name: "renamed", status: "active" });
      const listed = await client.listKeys(user.token);
      expect(listed.body.data).toEqual([reply.body]);
      // null removes the metadata; the record is the contract's again.
      const cleared = await client.updateKey(user.token, key.id, { metadata: null });
      expectJson(cleared, 200);
      expectKeyRecord(cleared.body, false);
    });

    it("disables a key (401 'API key is disabled') and enables it again", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      const disabled = await client.updateKey(user.token, key.id, { enabled: false });
      expectJson(disabled, 200);
      expect(disabled.body.status).toBe("disabled");
      const refused = await client.getProfile(key.key, newSlug());
      expect(expectErrorDetail(refused, 401)).toBe("API key is disabled");
      const enabled = await client.updateKey(user.token, key.id, { enabled: true });
      expect(enabled.body.status).toBe("active");
      expectStatus(await client.getProfile(key.key, newSlug()), 200);
    });

    it("narrows scopes, and refuses to widen them (422, nothing changed)", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user, {
        scopes: [contract.readScope, contract.writeScope],
      });
      const narrowed = await client.updateKey(user.token, key.id, { scopes: [contract.readScope] });
      expectJson(narrowed, 200);
      expect(narrowed.body.scopes).toEqual([contract.readScope]);
      expectErrorDetail(await client.putProfile(key.key, newSlug()), 403);
      const widened = await client.updateKey(user.token, key.id, {
        scopes: [contract.readScope, contract.writeScope],
      });
      const issue = issueAt(expectValidationIssues(widened), ["body", "scopes", 1]);
      expect(issue.msg).toContain(contract.writeScope);
      const listed = await client.listKeys(user.token);
      expect(listed.body.data[0]!.scopes).toEqual([contract.readScope]);
    });

    it("reports every bad value at once (422) and changes nothing", async () => {
      const user = await client.newUser(contract.highestTier.name);
      const key = await client.createKeyFor(user);
      const reply = await client.updateKey(user.token, key.id, {
        name: "",
        metadata: ["not", "an", "object"],
        enabled: "no",
        scopes: ["no:such:scope"],
      });
      expect(issueLocs(reply).sort()).toEqual(
        [
          '["body","enabled"]',
          '["body","metadata"]',
          '["body","name"]',
          '["body","scopes",0]',
        ].sort(),
      );
      const tooBig = await client.updateKey(user.token, key.id, {
        metadata: { blob: "x".repeat(5000) },
      });
      issueAt(expectValidationIssues(tooBig), ["body", "metadata"]);
      for (const body of [[], "text", 42]) {
        issueAt(expectValidationIssues(await client.updateKey(user.token, key.id, body)), ["body"]);
      }
      const listed = await client.listKeys(user.token);
      expect(listed.body.data[0]).toMatchObject({ name: "conformance key", status: "active" });
      expect(listed.body.data[0]).not.toHaveProperty("metadata");
    });

    it("refuses per-key limits in the body (422): they are the operator's, through keys.update", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      for (const limits of [{ credits: { remaining: 1_000_000 } }, null]) {
        const reply = await client.updateKey(user.token, key.id, { name: "unlimited", limits });
        expect(issueLocs(reply)).toEqual(['["body","limits"]']);
      }
      const listed = await client.listKeys(user.token);
      expect(listed.body.data[0]!.name).toBe("conformance key");
    });

    it("answers 410 for a revoked key, 404 for an unknown one, 403 for another user's", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      const other = await client.newUser();
      expectErrorDetail(await client.updateKey(other.token, key.id, { name: "mine now" }), 403);
      expectErrorDetail(
        await client.updateKey(user.token, "key_000000000000000000000000", { name: "x" }),
        404,
      );
      expectJson(await client.revokeKey(user.token, key.id), 200);
      expectErrorDetail(await client.updateKey(user.token, key.id, { enabled: true }), 410);
      expectStatus(await client.getProfile(key.key, newSlug()), 401);
    });

    it("refuses fields a PATCH does not have (422 naming each, extra_forbidden), changing nothing", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      const reply = await client.updateKey(user.token, key.id, {
        name: "renamed",
        tier: contract.highestTier.name,
        organizationId: "acme",
        expiresAt: "2099-01-01T00:00:00Z",
      });
      const issues = expectValidationIssues(reply);
      expect(issues.map((issue) => JSON.stringify(issue.loc)).sort()).toEqual(
        ['["body","expiresAt"]', '["body","organizationId"]', '["body","tier"]'].sort(),
      );
      for (const issue of issues) {
        expect(issue).toMatchObject({
          type: "extra_forbidden",
          msg: "Extra inputs are not permitted",
        });
      }
      // Reported with the fields' own problems, in one 422.
      const both = await client.updateKey(user.token, key.id, { name: "", tier: "x" });
      expect(issueLocs(both).sort()).toEqual(['["body","name"]', '["body","tier"]'].sort());
      const listed = await client.listKeys(user.token);
      expect(listed.body.data[0]).toMatchObject({
        name: "conformance key",
        tier: contract.lowestTier.name,
        expiresAt: null,
      });
    });

    it("tags records with an ETag; with If-Match a PATCH applies only at that version (412)", async () => {
      const user = await client.newUser();
      const created = await client.createKey(user.token, client.validCreateBody());
      expectJson(created, 201);
      const id = created.body.id;
      const first = created.headers.get("etag");
      expect(first, "ETag on create").toMatch(/^"[^"]+"$/);

      const renamed = await client.updateKey(
        user.token,
        id,
        { name: "first" },
        { "if-match": first! },
      );
      expectJson(renamed, 200);
      expect(renamed.body.name).toBe("first");
      const second = renamed.headers.get("etag");
      expect(second, "ETag on PATCH").toMatch(/^"[^"]+"$/);
      expect(second).not.toBe(first);

      // The tag read before the rename names a version that is gone: 412, and nothing changes.
      const stale = await client.updateKey(
        user.token,
        id,
        { name: "stale" },
        { "if-match": first! },
      );
      expectErrorDetail(stale, 412);
      expect((stale.body as { code?: string }).code).toBe("precondition_failed");
      // A weak tag never matches (If-Match compares strongly); another key's tag is not this key's.
      const weak = await client.updateKey(
        user.token,
        id,
        { name: "weak" },
        { "if-match": `W/${second}` },
      );
      expectErrorDetail(weak, 412);
      const otherKey = await client.createKey(user.token, client.validCreateBody());
      const foreign = otherKey.headers.get("etag")!;
      expectErrorDetail(
        await client.updateKey(user.token, id, { name: "foreign" }, { "if-match": foreign }),
        412,
      );
      expect((await client.listKeys(user.token)).body.data.find((k) => k.id === id)?.name).toBe(
        "first",
      );

      // One of several tags, or `*`, matches; a PATCH without If-Match applies as it always has.
      const listedTags = `${foreign}, ${second}`;
      const third = await client.updateKey(
        user.token,
        id,
        { name: "third" },
        { "if-match": listedTags },
      );
      expectJson(third, 200);
      const any = await client.updateKey(user.token, id, { name: "any" }, { "if-match": "*" });
      expectJson(any, 200);
      expectJson(await client.updateKey(user.token, id, { name: "plain" }), 200);

      // A rotation takes If-Match too: at a stale version it is refused and the secret still works.
      const current = (await client.updateKey(user.token, id, { name: "current" })).headers.get(
        "etag",
      )!;
      expectErrorDetail(
        await client.rotateKey(user.token, id, undefined, { "if-match": first! }),
        412,
      );
      expectStatus(await client.getProfile(created.body.key, newSlug()), 200);
      const rotatedAtTag = await client.rotateKey(user.token, id, undefined, {
        "if-match": current,
      });
      expectJson(rotatedAtTag, 200);
      expectStatus(await client.getProfile(created.body.key, newSlug()), 401);

      // A rotation is a change too: its answer carries the new tag, and the old one is stale.
      const beforeRotation = (
        await client.updateKey(user.token, id, { name: "before" })
      ).headers.get("etag")!;
      const rotated = await client.rotateKey(user.token, id);
      expectJson(rotated, 200);
      const afterRotation = rotated.headers.get("etag");
      expect(afterRotation, "ETag on rotate").toMatch(/^"[^"]+"$/);
      expect(afterRotation).not.toBe(beforeRotation);
      expectErrorDetail(
        await client.updateKey(user.token, id, { name: "x" }, { "if-match": beforeRotation }),
        412,
      );
      expectJson(
        await client.updateKey(user.token, id, { name: "after" }, { "if-match": afterRotation! }),
        200,
      );
      // A revoked key is gone whatever the tag says.
      expectJson(await client.revokeKey(user.token, id), 200);
      expectErrorDetail(
        await client.updateKey(user.token, id, { name: "x" }, { "if-match": afterRotation! }),
        410,
      );
    });

    it("takes metadata on create too, and shows it in the record", async () => {
      const user = await client.newUser();
      const reply = await client.createKey(user.token, {
        ...client.validCreateBody(),
        metadata: { environment: "staging" },
      });
      expectJson(reply, 201);
      expect(reply.body.metadata).toEqual({ environment: "staging" });
    });
  });
}
