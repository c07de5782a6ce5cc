import { BlockList } from "node:net";
import ipaddr from "ipaddr.js";
import { describe, expect, it } from "vitest";
import { canonicalClientAddress, clientAddressGroup } from "./client-address.js";

describe("clientAddressGroup", () => {
  it.each([
    ["127.0.0.1", "127.0.0.1"],
    [" 192.0.2.7 ", "192.0.2.7"],
    ["010.001.000.001", "10.1.0.1"],
    ["::ffff:127.0.0.2", "127.0.0.2"],
    ["::FFFF:7f00:2", "127.0.0.2"],
    ["[::ffff:192.0.2.1]", "192.0.2.1"],
    ["2001:db8:0:1::1", "2001:db8:0:1::/64"],
    ["2001:0DB8:0000:0001:ffff:ffff:ffff:ffff", "2001:db8:0:1::/64"],
    ["[2001:db8::1]", "2001:db8:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["::", "0:0:0:0::/64"],
    ["1:2:3:4:5:6:1.2.3.4", "1:2:3:4::/64"],
  ])("groups %j as %j", (address, group) => {
    expect(clientAddressGroup(address)).toBe(group);
  });

  it("has no group for an empty address", () => {
    expect(clientAddressGroup("")).toBeUndefined();
    expect(clientAddressGroup("   ")).toBeUndefined();
  });

  it.each([
    ["unix socket path", "/tmp/app.sock"],
    ["IPv4 with a part over 255", "256.1.1.1"],
    ["IPv6 with nine hextets", "1:2:3:4:5:6:7:8:9"],
    ["IPv6 with two ::", "1::2::3"],
  ])("counts a value that is not an address (%s) as itself", (_name, value) => {
    expect(clientAddressGroup(value)).toBe(value);
  });

  it("cuts a value that is not an address to 64 characters", () => {
    expect(clientAddressGroup("x".repeat(10_000))).toBe("x".repeat(64));
  });

  it("puts two IPv6 addresses in one group exactly when they share a /64 (against node:net)", () => {
    // Differential: node:net's BlockList decides /64 membership independently of our parsing.
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const hextet = () => (random() < 0.3 ? 0 : Math.floor(random() * 0x10000));
    const spellings = (hextets: number[]): string[] => {
      const full = hextets.map((h) => h.toString(16).padStart(4, "0")).join(":");
      const short = hextets.map((h) => h.toString(16).toUpperCase()).join(":");
      const canonical = new URL(`http://[${full}]/`).hostname.slice(1, -1);
      return [full, short, canonical];
    };
    for (let run = 0; run < 500; run++) {
      const a = Array.from({ length: 8 }, hextet);
      // Half the time b shares a's first four hextets, so both outcomes are exercised.
      const b =
        random() < 0.5
          ? [...a.slice(0, 4), ...Array.from({ length: 4 }, hextet)]
          : a.map((h, i) => (i === Math.floor(random() * 4) ? (h + 1) % 0x10000 : h));
      const isMapped = (h: number[]) => h.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff;
      if (isMapped(a) || isMapped(b)) continue;
      const [aText] = spellings(a);
      const blocks = new BlockList();
      blocks.addSubnet(aText!, 64, "ipv6");
      for (const bText of spellings(b)) {
        expect(
          clientAddressGroup(bText) === clientAddressGroup(aText!),
          `${aText} vs ${bText}`,
        ).toBe(blocks.check(bText, "ipv6"));
      }
    }
  });
});

describe("canonicalClientAddress", () => {
  it.each([
    ["127.0.0.1", "127.0.0.1"],
    [" 192.0.2.7 ", "192.0.2.7"],
    ["010.001.000.001", "10.1.0.1"],
    ["::ffff:127.0.0.1", "127.0.0.1"],
    ["::FFFF:7f00:2", "127.0.0.2"],
    ["[::ffff:192.0.2.1]", "192.0.2.1"],
    ["::1", "::1"],
    ["[::1]", "::1"],
    ["2001:0DB8:0000:0000:0000:0000:0000:0001", "2001:db8::1"],
    ["2001:db8:0:1:0:0:0:1", "2001:db8:0:1::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["fe80::1%eth0", "fe80::1"],
    ["1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"],
  ])("records %j as %j", (address, canonical) => {
    expect(canonicalClientAddress(address)).toBe(canonical);
  });

  it.each([
    ["empty", ""],
    ["blank", "   "],
    ["unix socket path", "/tmp/app.sock"],
    ["IPv4 with a part over 255", "256.1.1.1"],
    ["IPv6 with nine hextets", "1:2:3:4:5:6:7:8:9"],
    ["IPv6 with two ::", "1::2::3"],
    ["a list from a header", "192.0.2.1, 198.51.100.2"],
    ["a host name", "localhost"],
    ["anything long", "1".repeat(10_000)],
  ])("records nothing for a value that is not an address (%s)", (_name, value) => {
    expect(canonicalClientAddress(value)).toBeUndefined();
  });

  it("writes every IPv6 address as ipaddr.js does (RFC 5952), and a mapped one as its IPv4", () => {
    // Differential: the kernel parses addresses itself (ipaddr.js would add about 12.6 KB to the
    // kernel-only bundle); the library, which IP allowlists use, is the reference it must match.
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const hextet = () => (random() < 0.4 ? 0 : Math.floor(random() * 0x10000));
    for (let run = 0; run < 1_000; run++) {
      const hextets = Array.from({ length: 8 }, hextet);
      if (run % 10 === 0) hextets.splice(0, 6, 0, 0, 0, 0, 0, 0xffff);
      const full = hextets.map((h) => h.toString(16).padStart(4, "0")).join(":");
      const spellings = [full, full.toUpperCase(), `[${full}]`, `${full}%eth0`];
      const parsed = ipaddr.IPv6.parse(full);
      const expected = parsed.isIPv4MappedAddress()
        ? parsed.toIPv4Address().toString()
        : parsed.toRFC5952String();
      for (const spelling of spellings) {
        expect(canonicalClientAddress(spelling), spelling).toBe(expected);
      }
    }
  });
});
