/**
 * The connection URLs of the demo's stores, checked before any driver sees them: `pg` reads
 * `not-a-url` as a host name and answers `getaddrinfo ENOTFOUND base`, and ioredis would try
 * 127.0.0.1 for anything it cannot parse. A wrong scheme or an unparsable value stops the demo
 * with the variable's name and the expected form instead.
 */

interface UrlKind {
  protocols: readonly string[];
  example: string;
}

const kinds = {
  DATABASE_URL: {
    protocols: ["postgres:", "postgresql:"],
    example: "postgresql://postgres@127.0.0.1:5432/keyward",
  },
  REDIS_URL: { protocols: ["redis:", "rediss:"], example: "redis://127.0.0.1:6379" },
} satisfies Record<string, UrlKind>;

/** Returns `value` when it is a URL of the kind `name` takes; throws a `TypeError` otherwise. */
export function checkStoreUrl(name: keyof typeof kinds, value: string): string {
  const { protocols, example } = kinds[name];
  const schemes = protocols.map((protocol) => `${protocol}//`).join(" or ");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(
      `${name} is not a URL; it must start with ${schemes}, for example ${example}`,
    );
  }
  if (!protocols.includes(url.protocol)) {
    throw new TypeError(
      `${name} must start with ${schemes} (got "${url.protocol}//…"), for example ${example}`,
    );
  }
  if (!url.hostname) {
    throw new TypeError(`${name} names no host, for example ${example}`);
  }
  return value;
}
