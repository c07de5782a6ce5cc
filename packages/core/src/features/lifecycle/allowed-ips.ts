/**
 * IP allowlists: the addresses and CIDR ranges a key may be used from. Addresses are parsed by
 * ipaddr.js; what is ours is the policy around it:
 * - entries are strict (four-part decimal IPv4, no octal or hex forms; no zone ids; no bits set
 *   past the prefix length), so an entry always means what it looks like;
 * - an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, what a dual-stack socket reports for an IPv4
 *   client) is its IPv4 address, on both sides: as an entry and as a client address;
 * - a client address's zone id (`fe80::1%eth0`) names an interface of this host, not the client,
 *   and is ignored, as the failed-lookup limiter ignores it.
 * A list is parsed once per record and kept beside it (`compiledAllowedIps`), so verification
 * parses only the client's address.
 */
import ipaddr from "ipaddr.js";

/** The most entries one key's allowlist may hold. */
/** Longer than any address with a prefix length (IPv6 with an IPv4 tail and `/128`: 49). */
const maxEntryLength = 64;

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = readonly [Address, number];

/** One entry read: its canonical text, or why it is not an address or a range. */
export type AllowedIpEntry =
  | { ok: true; canonical: string; range: Range }
  | { ok: false; problem: string };

/**
 * Reads one allowlist entry: `203.0.113.7`, `203.0.113.0/24`, `2001:db8::1`, `2001:db8::/32`.
 * The canonical text is what is stored: IPv6 lowercase and compressed (RFC 5952), an IPv4-mapped
 * address or range as IPv4, a single address without a prefix length.
 *
 * @example
 * allowedIpEntry("2001:DB8::/32");        // { ok: true, canonical: "2001:db8::/32", … }
 * allowedIpEntry("::ffff:10.0.0.0/104");  // { ok: true, canonical: "10.0.0.0/8", … }
 * allowedIpEntry("10.0.0.1/8");           // { ok: false, problem: "… did you mean 10.0.0.0/8?" }
 */
export function allowedIpEntry(text: unknown): AllowedIpEntry {
  if (typeof text !== "string") return { ok: false, problem: "Input should be a valid string" };
  if (text.length > maxEntryLength || text.trim() !== text || text === "") {
    return notAnAddress(text);
  }
  if (text.includes("%")) {
    return {
      ok: false,
      problem: `'${text}' has a zone id (%…), which names an interface of this server, not a client; leave it out`,
    };
  }
  const [addressText = "", bitsText, ...rest] = text.split("/");
  if (rest.length > 0) return notAnAddress(text);
  const isV6 = addressText.includes(":");
  const valid = isV6
    ? ipaddr.IPv6.isValid(addressText)
    : ipaddr.IPv4.isValidFourPartDecimal(addressText);
  if (!valid) return notAnAddress(text);
  const address: Address = isV6 ? ipaddr.IPv6.parse(addressText) : ipaddr.IPv4.parse(addressText);
  const maxBits = isV6 ? 128 : 32;
  let bits = maxBits;
  if (bitsText !== undefined) {
    bits = /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : Number.NaN;
    if (!(bits <= maxBits)) {
      return {
        ok: false,
        problem: `'${text}' has a prefix length that is not 0–${maxBits}`,
      };
    }
  }
  const network = networkOf(address, bits);
  if (network.toString() !== address.toString()) {
    return {
      ok: false,
      problem: `'${text}' has bits set past its prefix length; did you mean ${canonicalText(network, bits, maxBits)}?`,
    };
  }
  const [stored, storedBits] = asIpv4IfMapped(network, bits);
  return {
    ok: true,
    canonical: canonicalText(stored, storedBits, stored.kind() === "ipv6" ? 128 : 32),
    range: [stored, storedBits],
  };
}

/** A key's allowlist, parsed: what verification asks about each client address. */
export interface CompiledAllowedIps {
  /** Whether `clientAddress` (as the adapter resolved it) falls inside any entry. */
  allows(clientAddress: string): boolean;
}

// Keyed by the list itself: the memory store and the verification cache hand out the same frozen
// record (and so the same list) on every lookup, so each list is parsed once, not per request.
const compiled = new WeakMap<readonly string[], CompiledAllowedIps>();

/** The parsed form of a stored allowlist, made on first use and kept as long as the list is. */
export function compiledAllowedIps(entries: readonly string[]): CompiledAllowedIps {
  let allowlist = compiled.get(entries);
  if (allowlist === undefined) {
    allowlist = compileAllowedIps(entries);
    compiled.set(entries, allowlist);
  }
  return allowlist;
}

function compileAllowedIps(entries: readonly string[]): CompiledAllowedIps {
  const ipv4: Range[] = [];
  const ipv6: Range[] = [];
  for (const text of entries) {
    // Stored lists were checked on the way in; an entry that no longer reads (edited by hand in
    // the database) allows nothing rather than failing every request of the key.
    const entry = allowedIpEntry(text);
    if (!entry.ok) continue;
    (entry.range[0].kind() === "ipv4" ? ipv4 : ipv6).push(entry.range);
  }
  return {
    allows(clientAddress) {
      const address = clientAddressOf(clientAddress);
      if (address === undefined) return false;
      if (address.kind() === "ipv4") {
        if (ipv4.some(([network, bits]) => address.match(network, bits))) return true;
        // An IPv6 range can hold IPv4 clients too: `::/0`, or `::ffff:0:0/96` with fewer bits.
        if (ipv6.length === 0) return false;
        const mapped = (address as ipaddr.IPv4).toIPv4MappedAddress();
        return ipv6.some(([network, bits]) => mapped.match(network, bits));
      }
      return ipv6.some(([network, bits]) => address.match(network, bits));
    },
  };
}

/**
 * The client's address as an address: IPv4-mapped IPv6 becomes IPv4, brackets and a zone id are
 * dropped. Undefined for anything that is not an address (then no entry allows it).
 */
function clientAddressOf(text: string): Address | undefined {
  if (typeof text !== "string" || text.length > maxEntryLength) return undefined;
  const bare = text
    .trim()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/%.*$/, "");
  if (bare.includes(":")) {
    if (!ipaddr.IPv6.isValid(bare)) return undefined;
    const address = ipaddr.IPv6.parse(bare);
    return address.isIPv4MappedAddress() ? address.toIPv4Address() : address;
  }
  return ipaddr.IPv4.isValidFourPartDecimal(bare) ? ipaddr.IPv4.parse(bare) : undefined;
}

function networkOf(address: Address, bits: number): Address {
  const bytes = address.toByteArray();
  for (let i = 0; i < bytes.length; i++) {
    const kept = Math.min(8, Math.max(0, bits - i * 8));
    bytes[i]! &= (0xff << (8 - kept)) & 0xff;
  }
  return ipaddr.fromByteArray(bytes);
}

/** An IPv4-mapped range that lies wholly inside `::ffff:0:0/96` is the IPv4 range it maps. */
function asIpv4IfMapped(address: Address, bits: number): [Address, number] {
  if (address.kind() === "ipv6" && bits >= 96 && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [address, bits];
}

function canonicalText(address: Address, bits: number, maxBits: number): string {
  const text =
    address.kind() === "ipv6" ? (address as ipaddr.IPv6).toRFC5952String() : address.toString();
  return bits === maxBits ? text : `${text}/${bits}`;
}

function notAnAddress(text: string): AllowedIpEntry {
  return {
    ok: false,
    problem: `'${text.length > maxEntryLength ? `${text.slice(0, maxEntryLength)}…` : text}' is not an IPv4 or IPv6 address or CIDR range (e.g. 203.0.113.7, 203.0.113.0/24, 2001:db8::/32)`,
  };
}
