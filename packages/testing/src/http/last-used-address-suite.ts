import { describe, expect, it } from "vitest";
import { newSlug, type SuiteClient } from "./client.js";
import { expectJson, expectStatus } from "./expectations.js";

/**
 * The loopback client as Keyward records it: IPv4 dotted (an IPv4-mapped IPv6 socket address is
 * written as the IPv4 it maps), IPv6 in canonical form.
 */
const LOOPBACK = ["127.0.0.1", "::1"];

/**
 * The client address of a key's last use (`permissions({ lastUsedAddress: true })`), against an
 * implementation whose host route passes `verify` the client's address as its framework resolves
 * it, with the suite's requests coming from a loopback address (127.0.0.1 or ::1), as for IP
 * allowlists.
 */
export function lastUsedAddressSuite(client: SuiteClient): void {
  describe("the last client address (lastUsedAddress)", () => {
    it("shows the address of a key's last use in its usage and its record, normalised", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      expect(key).not.toHaveProperty("lastUsedAddress");
      expectStatus(await client.getProfile(key.key, newSlug()), 200);

      // The usage report writes what was buffered first; the listing then reads it too.
      const usage = await client.keyUsage(user.token, key.id);
      expectJson(usage, 200);
      expect(LOOPBACK).toContain(usage.body.lastUsedAddress);
      expect(usage.body.lastUsedAt).not.toBeNull();
      const listed = await client.listKeys(user.token);
      expectJson(listed, 200);
      const record = listed.body.data.find((entry) => entry.id === key.id);
      expect(record?.lastUsedAddress).toBe(usage.body.lastUsedAddress);
      expect(record?.lastUsedAt).toBe(usage.body.lastUsedAt);
    });

    it("shows no address on a key never used", async () => {
      const user = await client.newUser();
      const key = await client.createKeyFor(user);
      const usage = await client.keyUsage(user.token, key.id);
      expectJson(usage, 200);
      expect(usage.body).not.toHaveProperty("lastUsedAddress");
      const [record] = (await client.listKeys(user.token)).body.data;
      expect(record).not.toHaveProperty("lastUsedAddress");
    });
  });
}
