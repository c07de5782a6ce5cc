import { describe, expect, it } from "vitest";
import { allowedIpEntry, compiledAllowedIps } from "./allowed-ips.js";

const canonical = (text: string) => {
  const entry = allowedIpEntry(text);
  return entry.ok ? entry.canonical : `error: ${entry.problem}`;
};

describe("allowedIpEntry", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    ["203.0.113.7/32", "203.0.113.7"],
    ["203.0.113.0/24", "203.0.113.0/24"],
    ["0.0.0.0/0", "0.0.0.0/0"],
    ["2001:DB8:0:0::1", "2001:db8::1"],
    ["2001:db8::/32", "2001:db8::/32"],
    ["::/0", "::/0"],
    ["::1", "::1"],
    // IPv4-mapped IPv6 is stored as the IPv4 it maps, so both spellings mean one thing.
    ["::ffff:10.0.0.1", "10.0.0.1"],
    ["::ffff:10.0.0.0/104", "10.0.0.0/8"],
    ["::ffff:0:0/96", "0.0.0.0/0"],
  ])("reads %s as %s", (text, expected) => {
    expect(canonical(text)).toBe(expected);
  });

  it.each([
    ["10.1", /not an IPv4 or IPv6 address/],
    ["010.0.0.1", /not an IPv4 or IPv6 address/],
    ["0x0a.0.0.1", /not an IPv4 or IPv6 address/],
    ["256.0.0.1", /not an IPv4 or IPv6 address/],
    ["1.2.3.4/33", /prefix length that is not 0–32/],
    ["2001:db8::/129", /prefix length that is not 0–128/],
    ["1.2.3.4/", /prefix length/],
    ["1.2.3.4/+8", /prefix length/],
    ["1.2.3.4/8/8", /not an IPv4 or IPv6 address/],
    ["10.0.0.1/8", /did you mean 10\.0\.0\.0\/8\?/],
    ["2001:db8::1/32", /did you mean 2001:db8::\/32\?/],
    ["fe80::1%eth0", /zone id/],
    [" 1.2.3.4", /not an IPv4 or IPv6 address/],
    ["", /not an IPv4 or IPv6 address/],
    ["localhost", /not an IPv4 or IPv6 address/],
    ["[::1]", /not an IPv4 or IPv6 address/],
    [`${"1".repeat(100)}`, /…' is not/],
  ])("refuses %j", (text, problem) => {
    expect(canonical(text)).toMatch(problem);
  });

  it("refuses what is not a string", () => {
    expect(allowedIpEntry(7)).toEqual({ ok: false, problem: "Input should be a valid string" });
  });
});

describe("compiledAllowedIps", () => {
  const allowlist = compiledAllowedIps(["10.0.0.0/8", "2001:db8::/32", "192.0.2.7"]);

  it.each([
    ["10.1.2.3", true],
    ["11.0.0.1", false],
    ["192.0.2.7", true],
    ["192.0.2.8", false],
    // What a dual-stack socket reports for an IPv4 client matches the IPv4 range.
    ["::ffff:10.1.2.3", true],
    ["::ffff:11.0.0.1", false],
    ["2001:db8:1::5", true],
    ["2001:db9::1", false],
    ["[2001:db8::1]", true],
    // A zone names this server's interface, not the client: ignored.
    ["2001:db8::1%eth0", true],
    ["", false],
    ["not an address", false],
    ["10.1", false],
  ])("%s → %s", (address, allowed) => {
    expect(allowlist.allows(address)).toBe(allowed);
  });

  it("matches IPv4 clients against IPv6 ranges that hold them, and mapped entries against IPv4", () => {
    expect(compiledAllowedIps(["::/0"]).allows("198.51.100.1")).toBe(true);
    expect(compiledAllowedIps(["::ffff:198.51.100.0/120"]).allows("198.51.100.1")).toBe(true);
    expect(compiledAllowedIps(["::ffff:198.51.100.0/120"]).allows("::ffff:198.51.100.9")).toBe(
      true,
    );
    expect(compiledAllowedIps(["0.0.0.0/0"]).allows("2001:db8::1")).toBe(false);
    expect(compiledAllowedIps(["::1"]).allows("127.0.0.1")).toBe(false);
  });

  it("is parsed once per list, however many times it is asked for", () => {
    const entries = Object.freeze(["10.0.0.0/8"]);
    expect(compiledAllowedIps(entries)).toBe(compiledAllowedIps(entries));
  });

  it("lets an entry that no longer reads allow nothing, not fail the key", () => {
    const edited = compiledAllowedIps(["not an address", "10.0.0.1"]);
    expect(edited.allows("10.0.0.1")).toBe(true);
    expect(edited.allows("not an address")).toBe(false);
  });
});
