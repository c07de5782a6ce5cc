/**
 * `KeyStore` on PostgreSQL. Every write is one statement, so its atomicity is the database's:
 * rotation is a conditional UPDATE that matches only the current hash of a live key, an update
 * with an expected version one that matches only that version, and revocation one that matches
 * only a key not yet revoked. Every write adds 1 to the row's `version`. Under READ COMMITTED, concurrent
 * UPDATEs of one row wait for each other and re-check their WHERE against the committed row, so
 * of many rotations that read the same hash exactly one matches.
 *
 * A change that comes with events (Keyward's `events` option) runs in one transaction: the
 * statement above, then, only if it changed a row, the INSERT of its events; a failure anywhere
 * rolls both back. Without events, each change is the single statement it always was.
 */
import type {
  FeatureFieldChanges,
  FeatureFields,
  JsonValue,
  KeyRotation,
  KeyStore,
  StoredEvent,
  StoredKey,
} from "@keyward/core";
import { type PostgresClient, queryRows, type TransactionalClient } from "../client.js";
import { insertEvents, insertEventsSql, postgresEventLog } from "../events/postgres-event-log.js";
import { epochMsParam, fromEpochMs } from "../schema/epoch-ms.js";
import type { Naming } from "../schema/naming.js";
import { type KeyRow, keyColumns, toStoredKey } from "./key-row.js";

/** The key store, and the event log (with its outbox) its changes write: the store's `events`. */
export function postgresKeyStore(
  client: TransactionalClient,
  naming: Naming,
): KeyStore & { events: ReturnType<typeof postgresEventLog> } {
  const keys = naming.tables.keys;
  const insertEventsStatement = insertEventsSql(naming);

  /**
   * Runs `change` on its own when there are no events; otherwise in a transaction with the INSERT
   * of the events, which runs only if `change` changed something (answered non-null).
   */
  const withEvents = async <T>(
    events: readonly StoredEvent[] | undefined,
    change: (on: PostgresClient) => Promise<T | null>,
  ): Promise<T | null> => {
    if (!events?.length) return change(client);
    return client.transaction(async (transaction) => {
      const changed = await change(transaction);
      if (changed !== null) await insertEvents(transaction, insertEventsStatement, events);
      return changed;
    });
  };

  const oneOn = async (
    on: PostgresClient,
    text: string,
    params: unknown[],
  ): Promise<StoredKey | null> => {
    const [row] = await queryRows<KeyRow>(on, text, params);
    return row ? toStoredKey(row) : null;
  };
  const one = (text: string, params: unknown[]) => oneOn(client, text, params);

  const sql = {
    create: `INSERT INTO ${keys}
      (id, owner_id, name, scopes, tier, secret_hash, hint, created_at, expires_at, revoked_at, rotated_at,
        owner_tier, owner_type, created_by, disabled_at, metadata, limits, previous_secret_hash,
        previous_secret_expires_at, environment, fields, version, enabled_at)
      VALUES ($1, $2, $3, $4::text::jsonb, $5, $6, $7, ${fromEpochMs("$8")}, ${fromEpochMs("$9")},
        ${fromEpochMs("$10")}, ${fromEpochMs("$11")}, $12, $13, $14, ${fromEpochMs("$15")},
        $16::text::jsonb, $17::text::jsonb, $18, ${fromEpochMs("$19")}, $20, $21::text::jsonb, $22,
        ${fromEpochMs("$23")})`,
    // Two unique indexes, one row at most: the current secret's, or the one a grace keeps alive.
    findByHash: `SELECT ${keyColumns} FROM ${keys}
      WHERE secret_hash = $1 OR previous_secret_hash = $1`,
    findById: `SELECT ${keyColumns} FROM ${keys} WHERE id = $1`,
    listByOwner: `SELECT ${keyColumns} FROM ${keys} WHERE owner_id = $1 AND owner_type = $2
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    // Counted on the owner index: no record is decoded or sent, whatever the owner ever had.
    countLiveByOwner: `SELECT count(*)::int AS live FROM ${keys} WHERE owner_id = $1 AND owner_type = $2
      AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${fromEpochMs("$3")})`,
    // A page after a position: keyset on the owner index, whatever the page's depth.
    listByOwnerAfter: `SELECT ${keyColumns} FROM ${keys} WHERE owner_id = $1 AND owner_type = $2
      AND (created_at, id) < (${fromEpochMs("$4")}, $5)
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    // Read off the partial index keys_expiring_idx (live keys with an expiry), in its order.
    listExpiring: `SELECT ${keyColumns} FROM ${keys}
      WHERE expires_at IS NOT NULL AND revoked_at IS NULL
        AND expires_at >= ${fromEpochMs("$1")} AND expires_at < ${fromEpochMs("$2")}
      ORDER BY expires_at, id LIMIT $3`,
    listExpiringAfter: `SELECT ${keyColumns} FROM ${keys}
      WHERE expires_at IS NOT NULL AND revoked_at IS NULL
        AND (expires_at, id) > (${fromEpochMs("$4")}, $5) AND expires_at < ${fromEpochMs("$2")}
        AND expires_at >= ${fromEpochMs("$1")}
      ORDER BY expires_at, id LIMIT $3`,
    // By the primary key, page after page; `COLLATE "C"` ids compare by byte, as code units do here.
    listLive: `SELECT ${keyColumns} FROM ${keys}
      WHERE revoked_at IS NULL AND ($2::text IS NULL OR id > $2::text)
      ORDER BY id LIMIT $1`,
    // Each field is set only when its flag is: one statement for every combination of changes.
    // $14, the expected version, is NULL for an unconditional update. A concurrent update of the
    // row waits for this one and re-checks the WHERE against the committed row, whose version has
    // moved on: it matches nothing, so of many updates from one version exactly one applies.
    update: `UPDATE ${keys} SET
        version = version + 1,
        name = CASE WHEN $2::boolean THEN $3 ELSE name END,
        scopes = CASE WHEN $4::boolean THEN $5::text::jsonb ELSE scopes END,
        metadata = CASE WHEN $6::boolean THEN $7::text::jsonb ELSE metadata END,
        disabled_at = CASE WHEN $8::boolean THEN ${fromEpochMs("$9")} ELSE disabled_at END,
        limits = CASE WHEN $10::boolean THEN $11::text::jsonb ELSE limits END,
        ${fieldChanges("$12", "$13")},
        enabled_at = CASE WHEN $15::boolean THEN ${fromEpochMs("$16")} ELSE enabled_at END
      WHERE id = $1 AND revoked_at IS NULL AND ($14::bigint IS NULL OR version = $14::bigint)
      RETURNING ${keyColumns}`,
    // On the right of SET, secret_hash is the value before this UPDATE: the replaced secret.
    rotate: `UPDATE ${keys} SET version = version + 1, secret_hash = $3, hint = $4, rotated_at = ${fromEpochMs("$5")},
        previous_secret_hash = CASE WHEN $6::bigint IS NULL THEN NULL ELSE secret_hash END,
        previous_secret_expires_at = ${fromEpochMs("$6")}, ${fieldChanges("$8", "$9")}
      WHERE id = $1 AND secret_hash = $2 AND revoked_at IS NULL
        AND ($7::bigint IS NULL OR version = $7::bigint)
      RETURNING ${keyColumns}`,
    revoke: `UPDATE ${keys} SET version = version + 1, revoked_at = ${fromEpochMs("$2")}
      WHERE id = $1 AND revoked_at IS NULL
      RETURNING ${keyColumns}`,
    setOwnerTier: `UPDATE ${keys} SET version = version + 1, owner_tier = $3
      WHERE owner_id = $1 AND owner_type = $2 AND owner_tier IS DISTINCT FROM $3
      RETURNING ${keyColumns}`,
    setLimits: `UPDATE ${keys} SET version = version + 1, limits = $2::text::jsonb WHERE id = $1 RETURNING ${keyColumns}`,
    // One statement for the batch, so it is all or nothing: a stored id is skipped (ON CONFLICT),
    // a hash another id holds violates the unique index and fails every row.
    importKeys: `INSERT INTO ${keys}
      (id, owner_id, name, scopes, tier, secret_hash, hint, created_at, expires_at, revoked_at,
        rotated_at, owner_tier, owner_type, created_by, disabled_at, metadata, limits, environment, version,
        fields)
      SELECT r.id, r.owner_id, r.name, r.scopes, r.tier, r.secret_hash, r.hint,
        ${fromEpochMs("r.created_at")}, ${fromEpochMs("r.expires_at")}, ${fromEpochMs("r.revoked_at")},
        ${fromEpochMs("r.rotated_at")}, r.owner_tier, r.owner_type, r.created_by,
        ${fromEpochMs("r.disabled_at")}, r.metadata, r.limits, r.environment, r.version, r.fields
      FROM jsonb_to_recordset($1::text::jsonb) AS r(id text, owner_id text, name text, scopes jsonb,
        tier text, secret_hash text, hint text, created_at bigint, expires_at bigint,
        revoked_at bigint, rotated_at bigint, owner_tier text, owner_type text, created_by text,
        disabled_at bigint, metadata jsonb, limits jsonb, environment text, version bigint,
        fields jsonb)
      ON CONFLICT (id) DO NOTHING
      RETURNING id`,
    rehash: `UPDATE ${keys} SET secret_hash = $3 WHERE id = $1 AND secret_hash = $2
      RETURNING ${keyColumns}`,
  };

  return {
    async create(key, events) {
      // A duplicate id or hash fails the primary key or the unique index: the error propagates.
      await withEvents(events, async (on) => {
        await on.query(sql.create, [
          key.id,
          key.ownerId,
          key.name,
          JSON.stringify(key.scopes),
          key.tier,
          key.secretHash,
          key.hint,
          epochMsParam(key.createdAt, "createdAt"),
          epochMsParam(key.expiresAt, "expiresAt"),
          epochMsParam(key.revokedAt, "revokedAt"),
          epochMsParam(key.rotatedAt, "rotatedAt"),
          key.ownerTier,
          key.ownerType,
          key.createdBy,
          epochMsParam(key.disabledAt, "disabledAt"),
          key.metadata === null ? null : JSON.stringify(key.metadata),
          key.limits == null ? null : JSON.stringify(key.limits),
          key.previousSecretHash,
          epochMsParam(key.previousSecretExpiresAt, "previousSecretExpiresAt"),
          key.environment ?? null,
          storedFields(key.fields),
          key.version,
          epochMsParam(key.enabledAt ?? null, "enabledAt"),
        ]);
        return true;
      });
    },

    findByHash: (secretHash) => one(sql.findByHash, [secretHash]),
    findById: (id) => one(sql.findById, [id]),

    async listByOwner(owner, options = {}) {
      // LIMIT NULL is no limit.
      const limit = options.limit ?? null;
      const rows = options.after
        ? await queryRows<KeyRow>(client, sql.listByOwnerAfter, [
            owner.id,
            owner.type,
            limit,
            epochMsParam(options.after.createdAt, "after.createdAt"),
            options.after.id,
          ])
        : await queryRows<KeyRow>(client, sql.listByOwner, [owner.id, owner.type, limit]);
      return rows.map(toStoredKey);
    },

    async countLiveByOwner(owner, now) {
      const [row] = await queryRows<{ live: number }>(client, sql.countLiveByOwner, [
        owner.id,
        owner.type,
        epochMsParam(now, "now"),
      ]);
      return row?.live ?? 0;
    },

    update: async (id, changes, events, expectedVersion) =>
      withEvents(events, (on) =>
        oneOn(on, sql.update, [
          id,
          changes.name !== undefined,
          changes.name ?? null,
          changes.scopes !== undefined,
          changes.scopes === undefined ? null : JSON.stringify(changes.scopes),
          changes.metadata !== undefined,
          changes.metadata == null ? null : JSON.stringify(changes.metadata),
          changes.disabledAt !== undefined,
          changes.disabledAt === undefined ? null : epochMsParam(changes.disabledAt, "disabledAt"),
          changes.limits !== undefined,
          changes.limits == null ? null : JSON.stringify(changes.limits),
          ...fieldChangeParams(changes.fields),
          expectedVersion ?? null,
          changes.enabledAt !== undefined,
          epochMsParam(changes.enabledAt ?? null, "enabledAt"),
        ]),
      ),

    async listExpiring({ from, to, limit, after }) {
      const window = [epochMsParam(from, "from"), epochMsParam(to, "to"), limit];
      const rows = after
        ? await queryRows<KeyRow>(client, sql.listExpiringAfter, [
            ...window,
            epochMsParam(after.expiresAt, "after.expiresAt"),
            after.id,
          ])
        : await queryRows<KeyRow>(client, sql.listExpiring, window);
      return rows.map(toStoredKey);
    },

    async listLive({ limit, after }) {
      const rows = await queryRows<KeyRow>(client, sql.listLive, [limit, after ?? null]);
      return rows.map(toStoredKey);
    },

    rotate: async (rotation: KeyRotation, events) =>
      withEvents(events, (on) =>
        oneOn(on, sql.rotate, [
          rotation.id,
          rotation.expectedHash,
          rotation.secretHash,
          rotation.hint,
          epochMsParam(rotation.rotatedAt, "rotatedAt"),
          epochMsParam(rotation.previousSecretExpiresAt ?? null, "previousSecretExpiresAt"),
          rotation.expectedVersion ?? null,
          ...fieldChangeParams(rotation.fields),
        ]),
      ),

    revoke: async (id, revokedAt, events) =>
      withEvents(events, (on) => oneOn(on, sql.revoke, [id, epochMsParam(revokedAt, "revokedAt")])),

    async setOwnerTier(owner, tier) {
      const rows = await queryRows<KeyRow>(client, sql.setOwnerTier, [owner.id, owner.type, tier]);
      return rows.map(toStoredKey);
    },

    setLimits: async (id, limits) =>
      one(sql.setLimits, [id, limits === null ? null : JSON.stringify(limits)]),

    async importKeys(batch) {
      if (batch.length === 0) return [];
      const rows = batch.map((key) => ({
        id: key.id,
        owner_id: key.ownerId,
        name: key.name,
        scopes: key.scopes,
        tier: key.tier,
        secret_hash: key.secretHash,
        hint: key.hint,
        created_at: epochMsParam(key.createdAt, "createdAt"),
        expires_at: epochMsParam(key.expiresAt, "expiresAt"),
        revoked_at: epochMsParam(key.revokedAt, "revokedAt"),
        rotated_at: epochMsParam(key.rotatedAt, "rotatedAt"),
        owner_tier: key.ownerTier,
        owner_type: key.ownerType,
        created_by: key.createdBy,
        disabled_at: epochMsParam(key.disabledAt, "disabledAt"),
        metadata: key.metadata,
        limits: key.limits ?? null,
        environment: key.environment ?? null,
        version: key.version,
        fields:
          key.fields === undefined || Object.keys(key.fields).length === 0 ? null : key.fields,
      }));
      const created = await queryRows<{ id: string }>(client, sql.importKeys, [
        JSON.stringify(rows),
      ]);
      return created.map((row) => row.id);
    },

    rehash: (id, from, to) => one(sql.rehash, [id, from, to]),

    events: postgresEventLog(client, naming),
  };
}

/**
 * The SQL that applies changes to feature fields: the object `$set` merged over the record's
 * (each of its fields replaced whole), then the names in the JSON list `$unset` removed (JSON text, as every parameter here, so no driver's array handling is relied on); no field
 * left is NULL, as a record that never had any. One expression for every combination of changes.
 */
function fieldChanges(set: string, unset: string): string {
  const removed = `ARRAY(SELECT jsonb_array_elements_text(${unset}::text::jsonb))`;
  return `fields = NULLIF((COALESCE(fields, '{}'::jsonb) || ${set}::text::jsonb) - ${removed},
          '{}'::jsonb)`;
}

/** `fieldChanges`' two parameters: the fields given a value, and the names given null. */
function fieldChangeParams(changes: FeatureFieldChanges | undefined): [string, string] {
  const set: Record<string, JsonValue> = {};
  const unset: string[] = [];
  for (const [name, value] of Object.entries(changes ?? {})) {
    if (value === null) unset.push(name);
    else if (value !== undefined) set[name] = value;
  }
  return [JSON.stringify(set), JSON.stringify(unset)];
}

/** A record's feature fields as the column holds them: NULL when there are none. */
function storedFields(fields: FeatureFields | undefined): string | null {
  return fields === undefined || Object.keys(fields).length === 0 ? null : JSON.stringify(fields);
}
