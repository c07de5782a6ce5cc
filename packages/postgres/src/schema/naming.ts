/**
 * Where the store's tables live: a schema and a table-name prefix, checked once and quoted, so
 * several deployments (or a test run) can share one database without touching each other.
 */

export interface NamingOptions {
  /** Schema for the tables; created by `migrate` if missing. Default `"public"`. */
  schema?: string;
  /** Prefix of every table and index name. Default `"keyward_"`. */
  tablePrefix?: string;
}

export interface Naming {
  schema: string;
  tablePrefix: string;
  /** Quoted, schema-qualified table names, ready to put into SQL. */
  tables: {
    keys: string;
    usage: string;
    migrations: string;
    allowances: string;
    events: string;
    /** Once-keys of appended events: which time- and usage-based events have fired. */
    eventOnce: string;
    webhookDeliveries: string;
  };
  /** Quoted schema name. */
  quotedSchema: string;
  /** A quoted index name (indexes live in their table's schema, so they are not qualified). */
  index(name: string): string;
  /** The LISTEN/NOTIFY channel for this schema and prefix. */
  channel: string;
  /**
   * Two 32-bit integers for `pg_advisory_xact_lock`, one pair per schema: runs for different
   * prefixes in one schema wait for each other too, so two of them never race to create it.
   */
  lockKey: readonly [number, number];
}

/** Postgres truncates identifiers past 63 bytes; a silently truncated name would be a different one. */
const maxIdentifierBytes = 63;
const identifierPattern = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** "keyw" in ASCII: the advisory-lock class shared by every Keyward migration. */
const lockClass = 0x6b657977;

export function resolveNaming({
  schema = "public",
  tablePrefix = "keyward_",
}: NamingOptions = {}): Naming {
  if (!identifierPattern.test(schema)) {
    throw new TypeError(`Invalid schema ${JSON.stringify(schema)}: use letters, digits and _`);
  }
  if (tablePrefix !== "" && !identifierPattern.test(tablePrefix)) {
    throw new TypeError(
      `Invalid tablePrefix ${JSON.stringify(tablePrefix)}: use letters, digits and _`,
    );
  }
  // The longest name made from the prefix is the owner index.
  const longest = `${tablePrefix}keys_owner_created_idx`;
  if (schema.length > maxIdentifierBytes || longest.length > maxIdentifierBytes) {
    throw new TypeError(
      `schema and tablePrefix must keep names within ${maxIdentifierBytes} characters`,
    );
  }
  const quote = (name: string) => `"${name}"`;
  const table = (name: string) => `${quote(schema)}.${quote(`${tablePrefix}${name}`)}`;
  // Lowercase letters, digits and _ only: a name every driver's LISTEN takes without quoting.
  const channel = `${schema}_${tablePrefix}invalidations`
    .toLowerCase()
    .slice(0, maxIdentifierBytes);
  return {
    schema,
    tablePrefix,
    quotedSchema: quote(schema),
    tables: {
      keys: table("keys"),
      usage: table("key_usage"),
      migrations: table("migrations"),
      allowances: table("allowances"),
      events: table("events"),
      eventOnce: table("event_once"),
      webhookDeliveries: table("webhook_deliveries"),
    },
    index: (name) => quote(`${tablePrefix}${name}`),
    channel,
    lockKey: [lockClass, stringHash(schema)],
  };
}

/** FNV-1a over UTF-16 code units, as a signed 32-bit integer (the type `pg_advisory_xact_lock` takes). */
function stringHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}
