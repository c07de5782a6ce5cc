import type { KeyWithSecret } from "@keyward/core";
import { describe, expect, it } from "vitest";
import type { Reply } from "./client.js";
import { newSlug, newUserId, type SuiteClient, type TestUser } from "./client.js";
import {
  expectErrorDetail,
  expectJson,
  expectKeyRecord,
  expectRateLimitHeaders,
  expectStatus,
  expectValidationIssues,
  issueAt,
} from "./expectations.js";

const expectValidationIssue = (reply: Reply, loc: string[]) =>
  issueAt(expectValidationIssues(reply), loc);

/** The contract's wording for a member whose role may not act (docs/organizations.md). */
export const ROLE_NOT_PERMITTED = "Your role in the organization does not permit this action";

type Role = "owner" | "admin" | "member" | (string & {});

/**
 * Organization-owned keys over HTTP: who may create, list, rotate, read usage of and revoke them,
 * with memberships carried by the JWT claim `orgs: [{ id, role, tier }]`.
 */
export function organizationsSuite(client: SuiteClient): void {
  const { contract } = client;
  const lowest = contract.lowestTier.name;
  const second = contract.secondTier.name;
  const highest = contract.highestTier.name;

  const newOrganization = () => `org_${crypto.randomUUID()}`;
  /** A signed-in user whose session lists `memberships`. */
  const memberOf = (
    memberships: { id: string; role: Role; tier?: string }[],
    tier: string = highest,
  ): Promise<TestUser> => client.newUser(tier, { orgs: memberships });
  const createFor = (user: TestUser, organizationId: string, fields: { tier?: string } = {}) =>
    client.createKey(user.token, {
      name: "team deploys",
      scopes: [contract.readScope],
      tier: fields.tier ?? lowest,
      organizationId,
    });
  const listFor = (user: TestUser, organizationId: string) =>
    client.send<{ data: KeyWithSecret[] }>(
      "GET",
      `${client.basePath}?organizationId=${encodeURIComponent(organizationId)}`,
      { token: user.token },
    );

  /** An organization at `tier` with an admin and a member, and a key the admin created. */
  async function organizationWithKey(tier: string = second) {
    const organizationId = newOrganization();
    const admin = await memberOf([{ id: organizationId, role: "admin", tier }]);
    const member = await memberOf([{ id: organizationId, role: "member", tier }]);
    const reply = await createFor(admin, organizationId);
    expectJson(reply, 201);
    return { organizationId, admin, member, key: reply.body };
  }

  describe("organizations", () => {
    it("an admin creates an organization's key: the record names the organization and the creator", async () => {
      const organizationId = newOrganization();
      const admin = await memberOf([{ id: organizationId, role: "admin", tier: second }], lowest);
      // The organization's tier decides, not the admin's own (which is lower here).
      const reply = await createFor(admin, organizationId, { tier: second });
      expectJson(reply, 201);
      const { owner, createdBy, ...record } = reply.body;
      expectKeyRecord(record, true);
      expect(owner).toEqual({ type: "organization", id: organizationId });
      expect(createdBy).toBe(admin.id);
      expect(record).toMatchObject({ tier: second, status: "active" });
    });

    it("a manager whose membership states no tier downgrades none of the organization's keys", async () => {
      const organizationId = newOrganization();
      const admin = await memberOf([{ id: organizationId, role: "admin", tier: second }]);
      const created = await createFor(admin, organizationId, { tier: second });
      expectJson(created, 201);
      const key = created.body;
      const tierless = await memberOf([{ id: organizationId, role: "admin" }], lowest);
      // Creating and rotating with such a membership records no tier: the recorded one caps them.
      expectJson(await createFor(tierless, organizationId, { tier: second }), 201);
      const rotated = await client.rotateKey(tierless.token, key.id);
      expectJson(rotated, 200);
      const used = await client.getProfile(rotated.body.key, newSlug());
      expectJson(used, 200);
      expectRateLimitHeaders(used, contract.secondTier.limit);
      // The principal names the organization as the owner; no user is behind the key.
      expect(used.body.viewer).toBe(organizationId);
    });

    it("members list the organization's keys; nobody's own list shows them", async () => {
      const { organizationId, admin, member, key } = await organizationWithKey();
      const listed = await listFor(member, organizationId);
      expectJson(listed, 200);
      expect(Object.keys(listed.body)).toEqual(["data"]);
      expect(listed.body.data.map((record) => record.id)).toEqual([key.id]);
      const [record] = listed.body.data;
      expect(record).not.toHaveProperty("key");
      expect(record).toMatchObject({ owner: { type: "organization", id: organizationId } });
      for (const user of [admin, member]) {
        const own = await client.listKeys(user.token);
        expectJson(own, 200);
        expect(own.body.data).toEqual([]);
      }
    });

    it("a member reads usage but may not rotate, revoke or create: 403 with the contract's wording", async () => {
      const { organizationId, member, key } = await organizationWithKey();
      expectJson(await client.keyUsage(member.token, key.id), 200);
      for (const reply of [
        await client.rotateKey(member.token, key.id),
        await client.revokeKey(member.token, key.id),
        await createFor(member, organizationId),
      ]) {
        expect(expectErrorDetail(reply, 403)).toBe(ROLE_NOT_PERMITTED);
      }
      // Nothing changed: the key still works.
      expectStatus(await client.getProfile(key.key, newSlug()), 200);
    });

    it("an admin rotates and revokes an organization's key", async () => {
      const { admin, key } = await organizationWithKey();
      const rotated = await client.rotateKey(admin.token, key.id);
      expectJson(rotated, 200);
      expect(rotated.body.key).not.toBe(key.key);
      expectStatus(await client.getProfile(key.key, newSlug()), 401);
      expectStatus(await client.getProfile(rotated.body.key, newSlug()), 200);
      const revoked = await client.revokeKey(admin.token, key.id);
      expectJson(revoked, 200);
      expect(revoked.body).toMatchObject({ id: key.id, status: "revoked" });
      expectStatus(await client.getProfile(rotated.body.key, newSlug()), 401);
    });

    it("a user outside the organization gets 403 for every call, and learns nothing", async () => {
      const { organizationId, key } = await organizationWithKey();
      const outsider = await memberOf([{ id: newOrganization(), role: "owner", tier: highest }]);
      for (const reply of [
        await createFor(outsider, organizationId),
        await listFor(outsider, organizationId),
        await client.rotateKey(outsider.token, key.id),
        await client.keyUsage(outsider.token, key.id),
        await client.revokeKey(outsider.token, key.id),
      ]) {
        expectErrorDetail(reply, 403);
      }
      // A user with no memberships at all, too.
      const stranger = await client.newUser(highest);
      expectErrorDetail(await listFor(stranger, organizationId), 403);
      expectErrorDetail(await client.rotateKey(stranger.token, key.id), 403);
      expectStatus(await client.getProfile(key.key, newSlug()), 200);
    });

    it("checks the key's tier against the organization's tier", async () => {
      const organizationId = newOrganization();
      const admin = await memberOf([{ id: organizationId, role: "owner", tier: lowest }], highest);
      const above = await createFor(admin, organizationId, { tier: second });
      expectErrorDetail(above, 403);
      expectJson(await createFor(admin, organizationId, { tier: lowest }), 201);
      const listed = await listFor(admin, organizationId);
      expect(listed.body.data).toHaveLength(1);
    });

    it("the key outlives its creator's membership and keeps working", async () => {
      const { organizationId, admin, key } = await organizationWithKey();
      // The admin signs in again, no longer in the organization.
      const departed = await client.userWithId(admin.id, highest, { orgs: [] });
      expectErrorDetail(await client.rotateKey(departed.token, key.id), 403);
      expectErrorDetail(await listFor(departed, organizationId), 403);
      const used = await client.getProfile(key.key, newSlug());
      expectJson(used, 200);
      // The key acts for the organization, never for the member who made it.
      expect(used.body.viewer).toBe(organizationId);
      const successor = await memberOf([{ id: organizationId, role: "owner", tier: second }]);
      const usage = await client.keyUsage(successor.token, key.id);
      expectJson(usage, 200);
      expect(usage.body.totalRequests).toBe(1);
      expectJson(await client.rotateKey(successor.token, key.id), 200);
    });

    it("refuses a bad organization id with 422 and creates nothing", async () => {
      const organizationId = newOrganization();
      const admin = await memberOf([{ id: organizationId, role: "admin", tier: highest }]);
      const notText = await client.createKey(admin.token, {
        ...client.validCreateBody(),
        organizationId: 42,
      });
      expectValidationIssue(notText, ["body", "organizationId"]);
      const empty = await client.createKey(admin.token, {
        ...client.validCreateBody(),
        organizationId: "",
      });
      expectValidationIssue(empty, ["body", "organizationId"]);
      expectValidationIssue(
        await client.send("GET", `${client.basePath}?organizationId=`, { token: admin.token }),
        ["query", "organizationId"],
      );
      const listed = await listFor(admin, organizationId);
      expect(listed.body.data).toEqual([]);
      expect((await client.listKeys(admin.token)).body.data).toEqual([]);
    });

    it("a user's own keys are untouched by an organization with the same id", async () => {
      const sharedId = newUserId();
      const user = await client.userWithId(sharedId, highest, {
        orgs: [{ id: sharedId, role: "owner", tier: highest }],
      });
      const own = await client.createKeyFor(user);
      expect(own).not.toHaveProperty("owner");
      expectJson(await createFor(user, sharedId), 201);
      const ownList = await client.listKeys(user.token);
      expect(ownList.body.data.map((record) => record.id)).toEqual([own.id]);
      const orgList = await listFor(user, sharedId);
      expect(orgList.body.data).toHaveLength(1);
      expect(orgList.body.data[0]!.id).not.toBe(own.id);
    });
  });
}
