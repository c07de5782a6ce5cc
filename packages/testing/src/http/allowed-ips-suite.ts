import { describe, expect, it } from "vitest";
import { type ErrorBody, newSlug, type SuiteClient } from "./client.js";
import {
  expectErrorDetail,
  expectJson,
  expectStatus,
  expectValidationIssues,
} from "./expectations.js";

/** Every loopback address the suite's requests may come from: IPv4, IPv6 and IPv4-mapped. */
const LOOPBACK = ["127.0.0.0/8", "::1"];
/** TEST-NET-1 and the IPv6 documentation range: no test client is ever there. */
const ELSEWHERE = ["192.0.2.0/24", "2001:db8::/32"];

/**
 * IP allowlists (`allowedIps`), against an implementation whose host route passes the client's
 * address as its framework resolves it, with the suite's requests coming from a loopback address
 * (127.0.0.1 or ::1). Per-adapter checks of that address (proxies, IPv4-mapped IPv6) are the
 * client-address suite's.
 */
export function allowedIpsSuite(client: SuiteClient, options: { keyUpdates: boolean }): void {
  describe("IP allowlists", () => {
    it("admits a key from an address its allowlist holds, and shows the list canonically", async () => {
      const user = await client.newUser();
      const reply = await client.createKey(user.token, {
        ...client.validCreateBody(),
        allowedIps: ["127.0.0.0/8", "::1", "::ffff:10.0.0.0/104", "2001:DB8:0::/48"],
      });
      expectJson(reply, 201);
      expect(reply.body.allowedIps).toEqual(["127.0.0.0/8", "::1", "10.0.0.0/8", "2001:db8::/48"]);
      expectStatus(await client.getProfile(reply.body.key, newSlug()), 200);
      const listed = await client.listKeys(user.token);
      expect(listed.body.data[0]?.allowedIps).toEqual(reply.body.allowedIps);
    });

    it("refuses a key from an address outside its allowlist: 403 ip_not_allowed", async () => {
      const user = await client.newUser();
      const reply = await client.createKey(user.token, {
        ...client.validCreateBody(),
        allowedIps: ELSEWHERE,
      });
      expectJson(reply, 201);
      const refused = await client.getProfile(reply.body.key, newSlug());
      expectErrorDetail(refused, 403);
      expect((refused.body as unknown as ErrorBody).code).toBe("ip_not_allowed");
    });

    it("reports every bad entry at once (422) and creates nothing", async () => {
      const user = await client.newUser();
      const reply = await client.createKey(user.token, {
        ...client.validCreateBody(),
        allowedIps: ["127.0.0.1", "10.0.0.1/8", "localhost", "fe80::1%eth0", 42, "127.0.0.1"],
      });
      const issues = expectValidationIssues(reply);
      expect(issues.map((issue) => issue.loc)).toEqual([
        ["body", "allowedIps", 1],
        ["body", "allowedIps", 2],
        ["body", "allowedIps", 3],
        ["body", "allowedIps", 4],
        ["body", "allowedIps", 5],
      ]);
      for (const allowedIps of [
        [],
        "127.0.0.1",
        Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`),
      ]) {
        const refused = await client.createKey(user.token, {
          ...client.validCreateBody(),
          allowedIps,
        });
        expect(expectValidationIssues(refused).map((issue) => issue.loc)).toEqual([
          ["body", "allowedIps"],
        ]);
      }
      expect((await client.listKeys(user.token)).body.data).toEqual([]);
    });

    if (options.keyUpdates) {
      it("sets, replaces and removes an allowlist with PATCH, effective on the next request", async () => {
        const user = await client.newUser();
        const key = await client.createKeyFor(user);
        const pinned = await client.updateKey(user.token, key.id, { allowedIps: ELSEWHERE });
        expectJson(pinned, 200);
        expect(pinned.body.allowedIps).toEqual(ELSEWHERE);
        expectErrorDetail(await client.getProfile(key.key, newSlug()), 403);
        const loopback = await client.updateKey(user.token, key.id, { allowedIps: LOOPBACK });
        expect(loopback.body.allowedIps).toEqual(LOOPBACK);
        expectStatus(await client.getProfile(key.key, newSlug()), 200);
        const removed = await client.updateKey(user.token, key.id, { allowedIps: null });
        expectJson(removed, 200);
        expect("allowedIps" in removed.body).toBe(false);
        expectStatus(await client.getProfile(key.key, newSlug()), 200);
      });

      it("refuses a bad allowlist in PATCH with every problem (422), changing nothing", async () => {
        const user = await client.newUser();
        const key = await client.createKeyFor(user);
        await client.updateKey(user.token, key.id, { allowedIps: LOOPBACK });
        const reply = await client.updateKey(user.token, key.id, {
          allowedIps: ["0.0.0.0/0", "1.2.3.4/33", "not an address"],
          name: "",
        });
        expect(expectValidationIssues(reply).map((issue) => issue.loc)).toEqual([
          ["body", "allowedIps", 1],
          ["body", "allowedIps", 2],
          ["body", "name"],
        ]);
        const empty = await client.updateKey(user.token, key.id, { allowedIps: [] });
        expect(expectValidationIssues(empty).map((issue) => issue.loc)).toEqual([
          ["body", "allowedIps"],
        ]);
        const [listed] = (await client.listKeys(user.token)).body.data;
        expect(listed?.allowedIps).toEqual(LOOPBACK);
        expect(listed?.name).toBe("conformance key");
      });
    }
  });
}
