/**
 * Which client a per-address limit counts a request against. One host must not be able to look
 * like many: an IPv6 host usually holds a whole /64 and can pick any address in it, so IPv6 is
 * grouped by its /64 prefix; an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, what a dual-stack
 * Node socket reports for an IPv4 client) is the IPv4 address it maps. And the one text of a client
 * address that a key's last use records (`canonicalClientAddress`), with the same reading.
 *
 * The kernel reads addresses itself rather than with ipaddr.js (which IP allowlists use): the
 * limiter's group is on every verification of an unknown key on a store that does I/O, and there
 * ipaddr.js is 1.3–3× slower on IPv6 and would add about 12.6 KB to the kernel-only bundle, whose
 * budget is 250 KB (docs/benchmarks.md, "Client addresses"). IPv4 is read as decimal either way
 * (ipaddr.js reads `010` as octal). The tests hold both readings to ipaddr.js's and node:net's.
 */

/** Longer than any textual IP address (45 characters); caps what a non-address value may hold. */
const maxGroupLength = 64;
const ipv4Pattern = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/**
 * The group a client address is counted in: an IPv4 address in dotted form (`192.0.2.1`), an IPv6
 * address's /64 prefix (`2001:db8:0:1::/64`), or, for a value that is neither, the value itself
 * (cut to 64 characters, so a host that passes a header through cannot make entries of any size).
 * Undefined for an empty value: no address, nothing to count against.
 *
 * @example
 * clientAddressGroup("2001:db8:0:1:aaaa::1"); // "2001:db8:0:1::/64"
 * clientAddressGroup("::ffff:127.0.0.1");     // "127.0.0.1"
 */
export function clientAddressGroup(address: string): string | undefined {
  const trimmed = address.trim();
  if (trimmed === "") return undefined;
  const ipv4 = dottedIpv4(trimmed);
  if (ipv4 !== undefined) return ipv4;
  if (trimmed.includes(":")) {
    const group = ipv6Group(trimmed);
    if (group !== undefined) return group;
  }
  return trimmed.slice(0, maxGroupLength);
}

/**
 * A client address as Keyward records it with a key's last use (`permissions()` can keep it):
 * IPv4 dotted (`192.0.2.1`, leading zeros dropped), an IPv4-mapped IPv6 address as the IPv4 address
 * it maps (`::ffff:127.0.0.1` is `127.0.0.1`), any other IPv6 address in its canonical text
 * (lowercase and compressed, `2001:db8::1`), brackets and a zone dropped: one client, one text,
 * whichever form the framework reported. Undefined for a value that is not an IP address (a Unix
 * socket's path, an empty value): nothing is recorded for it.
 *
 * @example
 * canonicalClientAddress("::ffff:127.0.0.1"); // "127.0.0.1"
 * canonicalClientAddress("[2001:DB8:0::1]");  // "2001:db8::1"
 * canonicalClientAddress("/tmp/app.sock");    // undefined
 */
export function canonicalClientAddress(address: string): string | undefined {
  // Longer than any address with brackets and a short zone: nothing to parse.
  if (typeof address !== "string" || address.length > maxGroupLength) return undefined;
  const trimmed = address.trim();
  if (trimmed === "") return undefined;
  const ipv4 = dottedIpv4(trimmed);
  if (ipv4 !== undefined) return ipv4;
  if (!trimmed.includes(":")) return undefined;
  const parsed = parseIpv6(trimmed);
  if (parsed === undefined) return undefined;
  return isIpv4Mapped(parsed.hextets) ? mappedIpv4(parsed.hextets) : parsed.canonical;
}

/** `a.b.c.d` with each part 0–255, leading zeros dropped; undefined for anything else. */
function dottedIpv4(text: string): string | undefined {
  const match = ipv4Pattern.exec(text);
  if (!match) return undefined;
  const parts = match.slice(1).map(Number);
  return parts.every((part) => part <= 255) ? parts.join(".") : undefined;
}

/**
 * The /64 prefix of an IPv6 address, or the IPv4 address an IPv4-mapped one carries.
 */
function ipv6Group(text: string): string | undefined {
  const parsed = parseIpv6(text);
  if (parsed === undefined) return undefined;
  const { hextets } = parsed;
  if (isIpv4Mapped(hextets)) return mappedIpv4(hextets);
  return `${hextets
    .slice(0, 4)
    .map((hextet) => hextet.toString(16))
    .join(":")}::/64`;
}

/**
 * An IPv6 address, validated and in its canonical text (`canonical`, without brackets), with its
 * eight hextets. The WHATWG URL parser (in every runtime) validates the address and writes it in its
 * canonical form: lowercase, no leading zeros, the longest zero run as `::`, an embedded IPv4 tail
 * as two hextets. A zone (`fe80::1%eth0`) names an interface on this host, not another client, so
 * it is dropped.
 */
function parseIpv6(text: string): { canonical: string; hextets: number[] } | undefined {
  const bare = text.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  let hostname: string;
  try {
    hostname = new URL(`http://[${bare}]/`).hostname;
  } catch {
    return undefined;
  }
  const canonical = hostname.slice(1, -1);
  const hextets = expand(canonical);
  return hextets === undefined ? undefined : { canonical, hextets };
}

/** `::ffff:a.b.c.d`: what a dual-stack socket reports for an IPv4 client. */
function isIpv4Mapped(hextets: readonly number[]): boolean {
  return hextets.slice(0, 5).every((hextet) => hextet === 0) && hextets[5] === 0xffff;
}

/** The IPv4 address an IPv4-mapped IPv6 address carries, dotted. */
function mappedIpv4(hextets: readonly number[]): string {
  const [high = 0, low = 0] = hextets.slice(6);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
}

/** The eight hextets of a canonical IPv6 address (`::` expanded). */
function expand(canonical: string): number[] | undefined {
  const [head = "", tail, ...rest] = canonical.split("::");
  if (rest.length > 0) return undefined;
  const headParts = head === "" ? [] : head.split(":");
  const tailParts = tail === undefined || tail === "" ? [] : tail.split(":");
  const zeros = 8 - headParts.length - tailParts.length;
  if (zeros < 0 || (tail === undefined && zeros !== 0)) return undefined;
  const hextets = [...headParts, ...Array<string>(zeros).fill("0"), ...tailParts].map((part) =>
    Number.parseInt(part, 16),
  );
  return hextets.every((hextet) => hextet >= 0 && hextet <= 0xffff) ? hextets : undefined;
}
