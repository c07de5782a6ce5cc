/**
 * The schema, as numbered migrations. Version 1 is the first release's schema, built directly:
 * the pre-release steps that led to it were collapsed into it before anything was published.
 * From the first release on a migration is never edited: a change is a new entry at the end,
 * tested from the previous release's database. Statements run one at a time (PGlite's `query`
 * takes one statement), all in the one transaction `migrate` opens, so a failed migration leaves
 * nothing behind.
 */
import { type Naming, type NamingOptions, resolveNaming } from "./naming.js";

export interface Migration {
  version: number;
  name: string;
  statements(naming: Naming): string[];
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: "first schema",
    // Columns keep the order the pre-release steps gave them, so a database built by those steps
    // and one built by this have the same catalog (test/fixtures/first-schema.json pins it).
    statements: ({ tables, index }) => [
      // COLLATE "C" makes ids, routes and owners compare by code point: the order the memory store
      // uses, and cheaper than a linguistic collation for columns nobody reads as prose.
      // Times are timestamptz, converted to and from epoch milliseconds in the queries.
      `CREATE TABLE ${tables.keys} (
        id text COLLATE "C" PRIMARY KEY,
        owner_id text COLLATE "C" NOT NULL,
        name text NOT NULL,
        scopes jsonb NOT NULL CHECK (jsonb_typeof(scopes) = 'array'),
        tier text NOT NULL,
        secret_hash text COLLATE "C" NOT NULL CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
        hint text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz,
        revoked_at timestamptz,
        rotated_at timestamptz,
        -- The owner's account tier as last seen, shared by their keys; verification caps a key at
        -- it, and NULL (not seen yet) caps nothing.
        owner_tier text,
        owner_type text NOT NULL DEFAULT 'user' CHECK (owner_type IN ('user', 'organization')),
        -- NULL reads as the owner (COALESCE in the select list); the store always writes it.
        created_by text COLLATE "C",
        disabled_at timestamptz,
        metadata jsonb CHECK (metadata IS NULL OR jsonb_typeof(metadata) = 'object'),
        -- An operator's per-key overrides and credits grant (keys.setLimits); NULL: the tier's.
        limits jsonb CHECK (jsonb_typeof(limits) = 'object'),
        -- The secret before a graceful rotation, found until it expires; both or neither.
        previous_secret_hash text COLLATE "C" CHECK (previous_secret_hash ~ '^[0-9a-f]{64}$'),
        previous_secret_expires_at timestamptz,
        -- NULL: the environment the hint's prefix names.
        environment text COLLATE "C",
        -- The fields features add to a key (an allowlist, resource limits…), by name; the store
        -- keeps them as given and never looks inside. NULL: none.
        fields jsonb CHECK (fields IS NULL OR jsonb_typeof(fields) = 'object'),
        -- The compare-and-set of an update (and an HTTP ETag) reads it; every write adds 1.
        version bigint NOT NULL DEFAULT 1,
        -- When a disabled key was last enabled again; the inactivity scan counts from it. NULL: never.
        enabled_at timestamptz,
        CONSTRAINT ${index("keys_previous_secret_pair")}
          CHECK ((previous_secret_hash IS NULL) = (previous_secret_expires_at IS NULL))
      )`,
      // The lookup on every verification; unique, so two keys can never share a secret.
      `CREATE UNIQUE INDEX ${index("keys_secret_hash_key")} ON ${tables.keys} (secret_hash)`,
      // The second arm of that lookup; partial, since almost every key has no previous secret,
      // and unique like the current hash.
      `CREATE UNIQUE INDEX ${index("keys_previous_secret_hash_key")} ON ${tables.keys}
        (previous_secret_hash) WHERE previous_secret_hash IS NOT NULL`,
      // Listing: an owner's keys, newest first, read straight off the index. By owner type and id:
      // a user and an organization may share an id.
      `CREATE INDEX ${index("keys_owner_created_idx")} ON ${tables.keys}
        (owner_id, owner_type, created_at DESC, id DESC)`,
      // `key.expiring`'s scan: live keys by expiry, in the order it pages by. Partial, so keys
      // without an expiry and revoked ones cost it nothing.
      `CREATE INDEX ${index("keys_expiring_idx")} ON ${tables.keys} (expires_at, id)
        WHERE expires_at IS NOT NULL AND revoked_at IS NULL`,

      // One row per key, endpoint and UTC day. No foreign key: usage may be recorded for a key
      // this database does not hold (another store, or one deleted by hand), and must not fail.
      `CREATE TABLE ${tables.usage} (
        key_id text COLLATE "C" NOT NULL,
        method text COLLATE "C" NOT NULL,
        route text COLLATE "C" NOT NULL,
        day date NOT NULL,
        count bigint NOT NULL CHECK (count > 0),
        last_used_at timestamptz NOT NULL,
        -- The fields the row's latest use that wrote any wrote (a feature's key fields written by
        -- uses, as Keyward encodes them: never read here), and when that use was (a later use
        -- writing none moves last_used_at alone). A key's are its rows' latest; both or neither.
        use_fields text COLLATE "C",
        use_fields_at timestamptz,
        PRIMARY KEY (key_id, method, route, day),
        CONSTRAINT ${index("key_usage_use_fields_pair")}
          CHECK ((use_fields IS NULL) = (use_fields_at IS NULL))
      )`,
      // `usage.retainDays` prunes the oldest days first, in batches: this index finds them without
      // reading the table. Pruned days are folded into one row per key and endpoint on the day
      // '-infinity' (no other table: every read already sums a key's rows).
      `CREATE INDEX ${index("usage_day_idx")} ON ${tables.usage} (day)`,

      // The live state of quotas (per owner) and credits (per key): the tuple `stepLayer` keeps,
      // e.g. {periodStart, count} or {grantedAt, balance, refilledAt}; '{}' is a row just locked.
      `CREATE TABLE ${tables.allowances} (
        bucket text COLLATE "C" PRIMARY KEY,
        state bigint[] NOT NULL
      )`,

      // Written in the transaction of the key change they record (see postgresKeyStore). No
      // foreign key, as for usage: an event outlives nothing it refers to, and must not fail.
      // `actor` and `data` hold no secret and no hash, only what the change set.
      // `webhook_pending` is the outbox mark, in the event's own row, so whatever writes the event
      // writes it in the same statement.
      `CREATE TABLE ${tables.events} (
        id text COLLATE "C" PRIMARY KEY,
        type text COLLATE "C" NOT NULL,
        occurred_at timestamptz NOT NULL,
        owner_type text NOT NULL CHECK (owner_type IN ('user', 'organization')),
        owner_id text COLLATE "C" NOT NULL,
        key_id text COLLATE "C",
        actor jsonb NOT NULL CHECK (jsonb_typeof(actor) = 'object'),
        data jsonb NOT NULL CHECK (jsonb_typeof(data) = 'object'),
        webhook_pending boolean NOT NULL DEFAULT true
      )`,
      // The audit log: an owner's events, or a key's, newest first, read straight off an index.
      `CREATE INDEX ${index("events_owner_idx")} ON ${tables.events}
        (owner_id, owner_type, occurred_at DESC, id DESC)`,
      `CREATE INDEX ${index("events_key_idx")} ON ${tables.events} (key_id, occurred_at DESC, id DESC)`,
      // Retention deletes by age.
      `CREATE INDEX ${index("events_time_idx")} ON ${tables.events} (occurred_at)`,
      // Dispatch reads the marked rows oldest first; partial, so it stays as small as the backlog.
      `CREATE INDEX ${index("events_outbox_idx")} ON ${tables.events} (occurred_at, id)
        WHERE webhook_pending`,

      // One row per once-key of an appended event (`key.expiring` for a key and its expiry, a
      // quota threshold for an owner and a period): the primary key is what lets exactly one
      // instance write such an event. Kept until `held_until`, apart from the events' retention.
      `CREATE TABLE ${tables.eventOnce} (
        once_key text COLLATE "C" PRIMARY KEY,
        held_until timestamptz NOT NULL
      )`,
      `CREATE INDEX ${index("event_once_held_until_idx")} ON ${tables.eventOnce} (held_until)`,

      // One row per event and endpoint. Deleted with its event (retention), so a dead letter is
      // kept as long as the event it failed to deliver.
      `CREATE TABLE ${tables.webhookDeliveries} (
        id text COLLATE "C" PRIMARY KEY,
        event_id text COLLATE "C" NOT NULL REFERENCES ${tables.events} (id) ON DELETE CASCADE,
        endpoint_id text COLLATE "C" NOT NULL,
        occurred_at timestamptz NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'delivered', 'dead')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
        lease text COLLATE "C",
        last_attempt_at timestamptz,
        last_response_status integer,
        last_error text,
        delivered_at timestamptz
      )`,
      // Claims: due pending deliveries, soonest first.
      `CREATE INDEX ${index("whd_due_idx")} ON ${tables.webhookDeliveries} (next_attempt_at)
        WHERE status = 'pending'`,
      `CREATE INDEX ${index("whd_status_idx")} ON ${tables.webhookDeliveries}
        (status, occurred_at DESC, id DESC)`,
      `CREATE INDEX ${index("whd_endpoint_idx")} ON ${tables.webhookDeliveries}
        (endpoint_id, occurred_at DESC, id DESC)`,
      // The cascade from a pruned event finds its deliveries by this.
      `CREATE INDEX ${index("whd_event_idx")} ON ${tables.webhookDeliveries} (event_id)`,
    ],
  },
];

export const latestVersion = migrations.at(-1)!.version;

/**
 * The SQL of every migration for a schema and prefix, for teams that apply migrations with their
 * own tool. Record the applied versions in the migrations table as `migrate` does, or never mix
 * the two.
 *
 * @example
 * for (const { version, statements } of migrationStatements({ schema: "auth" })) {
 *   writeFileSync(`migrations/${version}_keyward.sql`, `${statements.join(";\n\n")};\n`);
 * }
 */
export function migrationStatements(
  options: NamingOptions = {},
): { version: number; name: string; statements: string[] }[] {
  const naming = resolveNaming(options);
  return migrations.map(({ version, name, statements }) => ({
    version,
    name,
    statements: statements(naming),
  }));
}
