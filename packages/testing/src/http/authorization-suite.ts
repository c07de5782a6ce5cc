import { describe, expect, it } from "vitest";
import { newSlug, type SuiteClient } from "./client.js";
import { expectErrorDetail, expectJson, expectStatus, sleep } from "./expectations.js";
import type { HttpSuiteOptions } from "./options.js";
import type { SuiteContract } from "./suite-contract.js";

interface TierCase {
  account: string | null;
  key: string;
  status: 201 | 403;
}

/**
 * Every account tier against every key tier: a key at or below the account's tier is created, one
 * above it refused. A JWT without a `tier` claim is an account at the lowest tier.
 */
function tierCases(contract: SuiteContract): TierCase[] {
  const names = contract.tiers.map((tier) => tier.name);
  const cases = names.flatMap((account, rank) =>
    names.map((key, keyRank): TierCase => ({ account, key, status: keyRank <= rank ? 201 : 403 })),
  );
  return [
    ...cases,
    { account: null, key: contract.lowestTier.name, status: 201 },
    { account: null, key: contract.secondTier.name, status: 403 },
  ];
}

/** What an authenticated user may do to which key: tiers, ownership, and keys that are gone. */
export function authorizationSuite(client: SuiteClient, options: HttpSuiteOptions): void {
  const contract = client.contract;
  describe("authorization and key lifecycle errors", () => {
    it.each(tierCases(contract))(
      "account tier $account creating a $key key: $status",
      async ({ account, key, status }) => {
        const user = await client.newUser(account);
        const reply = await client.createKey(user.token, {
          name: "tiered",
          scopes: [contract.readScope],
          tier: key,
        });
        if (status === 403) {
          expectErrorDetail(reply, 403);
          expect((await client.listKeys(user.token)).body).toEqual({ data: [] });
        } else {
          expectJson(reply, 201);
          expect(reply.body.tier).toBe(key);
        }
      },
    );

    it("403 on another user's key for rotate, usage and revoke; the key is untouched", async () => {
      const owner = await client.newUser();
      const key = await client.createKeyFor(owner, {
        name: "owner's private label",
        scopes: [contract.readScope],
      });
      const intruder = await client.newUser(contract.highestTier.name);
      for (const reply of [
        await client.rotateKey(intruder.token, key.id),
        await client.keyUsage(intruder.token, key.id),
        await client.revokeKey(intruder.token, key.id),
      ]) {
        expectErrorDetail(reply, 403);
        expect(reply.text).not.toContain(key.key);
        expect(reply.text).not.toContain("owner's private label");
      }
      expectStatus(await client.getProfile(key.key, newSlug()), 200);
      const listed = await client.listKeys(owner.token);
      expect(listed.body.data).toEqual([
        expect.objectContaining({ id: key.id, status: "active", hint: key.hint }),
      ]);
    });

    it("404 for an unknown key id on rotate, usage and revoke", async () => {
      const user = await client.newUser();
      const unknownId = `unknown_${crypto.randomUUID().replaceAll("-", "")}`;
      expectErrorDetail(await client.rotateKey(user.token, unknownId), 404);
      expectErrorDetail(await client.keyUsage(user.token, unknownId), 404);
      expectErrorDetail(await client.revokeKey(user.token, unknownId), 404);
    });

    it("410 for rotating or revoking a key already revoked", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      const revoked = await client.revokeKey(user.token, key.id);
      expectStatus(revoked, 200);
      expectErrorDetail(await client.revokeKey(user.token, key.id), 410);
      expectErrorDetail(await client.rotateKey(user.token, key.id), 410);
      // A second revocation does not move the revocation time.
      const listed = await client.listKeys(user.token);
      expect(listed.body.data[0]).toMatchObject({
        status: "revoked",
        revokedAt: revoked.body.revokedAt,
      });
      expectErrorDetail(await client.getProfile(key.key, newSlug()), 401);
    });

    it.skipIf(options.skipSlow)(
      "an expired key answers 401, lists as expired, and cannot be rotated (410)",
      async () => {
        const user = await client.newUser();
        const expiresAtMs = Date.now() + 1_500;
        const key = await client.createKeyFor(user, {
          scopes: [contract.readScope],
          expiresAt: new Date(expiresAtMs).toISOString(),
        });
        expectStatus(await client.getProfile(key.key, newSlug()), 200);

        await sleep(expiresAtMs - Date.now() + 250);
        expectErrorDetail(await client.getProfile(key.key, newSlug()), 401);
        expectErrorDetail(await client.rotateKey(user.token, key.id), 410);
        const listed = await client.listKeys(user.token);
        expectJson(listed, 200);
        expect(listed.body.data).toEqual([
          expect.objectContaining({ id: key.id, status: "expired", revokedAt: null }),
        ]);
        // The failed rotation issued no working secret: the key is still the one that expired.
        expect(listed.body.data[0]!.hint).toBe(key.hint);
      },
      15_000,
    );
  });
}
