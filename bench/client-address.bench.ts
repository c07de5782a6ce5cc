/**
 * The client address's two readings (`auth/client-address.ts`): the failed-lookup limiter's group
 * and the text a key's last use records, by Keyward's own parser against the same readings built
 * on ipaddr.js (which `@keyward/core` already uses for IP allowlists), in one run. The kernel keeps
 * its parser: ipaddr.js is slower here and would add about 12.6 KB to the kernel-only bundle
 * (docs/benchmarks.md, "Client addresses").
 */
import { createRequire } from "node:module";
import { bench, do_not_optimize, group, summary } from "mitata";
import {
  canonicalClientAddress,
  clientAddressGroup,
} from "../packages/core/src/auth/client-address.js";

// ipaddr.js as @keyward/core resolves it: the bench package does not depend on it itself.
const ipaddr = createRequire(new URL("../packages/core/package.json", import.meta.url))(
  "ipaddr.js",
) as typeof import("ipaddr.js");

const ipv4Pattern = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The same readings on ipaddr.js: IPv4 as Keyward reads it (decimal), IPv6 by the library. */
function dottedIpv4(text: string): string | undefined {
  const match = ipv4Pattern.exec(text);
  if (!match) return undefined;
  const parts = match.slice(1).map(Number);
  return parts.every((part) => part <= 255) ? parts.join(".") : undefined;
}
function ipv6Of(text: string) {
  const bare = text.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  return ipaddr.IPv6.isValid(bare) ? ipaddr.IPv6.parse(bare) : undefined;
}
function libraryGroup(address: string): string | undefined {
  const trimmed = address.trim();
  if (trimmed === "") return undefined;
  const ipv4 = dottedIpv4(trimmed);
  if (ipv4 !== undefined) return ipv4;
  const ipv6 = trimmed.includes(":") ? ipv6Of(trimmed) : undefined;
  if (ipv6 === undefined) return trimmed.slice(0, 64);
  if (ipv6.isIPv4MappedAddress()) return ipv6.toIPv4Address().toString();
  return `${ipv6.parts
    .slice(0, 4)
    .map((hextet) => hextet.toString(16))
    .join(":")}::/64`;
}
function libraryCanonical(address: string): string | undefined {
  if (address.length > 64) return undefined;
  const trimmed = address.trim();
  const ipv4 = dottedIpv4(trimmed);
  if (ipv4 !== undefined) return ipv4;
  const ipv6 = trimmed.includes(":") ? ipv6Of(trimmed) : undefined;
  if (ipv6 === undefined) return undefined;
  return ipv6.isIPv4MappedAddress() ? ipv6.toIPv4Address().toString() : ipv6.toRFC5952String();
}

const addresses = {
  IPv4: "203.0.113.7",
  "IPv4-mapped IPv6": "::ffff:203.0.113.7",
  IPv6: "2001:db8:0:1:aaaa:bbbb:cccc:1",
};
for (const [kind, address] of Object.entries(addresses)) {
  if (clientAddressGroup(address) !== libraryGroup(address)) throw new Error(`group of ${address}`);
  if (canonicalClientAddress(address) !== libraryCanonical(address)) {
    throw new Error(`canonical text of ${address}`);
  }
  summary(() => {
    group(`client address: limiter group, ${kind}`, () => {
      bench("Keyward's parser", () => do_not_optimize(clientAddressGroup(address)));
      bench("ipaddr.js", () => do_not_optimize(libraryGroup(address)));
    });
  });
  summary(() => {
    group(`client address: recorded text, ${kind}`, () => {
      bench("Keyward's parser", () => do_not_optimize(canonicalClientAddress(address)));
      bench("ipaddr.js", () => do_not_optimize(libraryCanonical(address)));
    });
  });
}
