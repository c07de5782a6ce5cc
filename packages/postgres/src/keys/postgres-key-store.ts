/**
 * `KeyStore` on PostgreSQL. Every write is one statement, so its atomicity is the database's:
 * rotation is a conditional UPDATE that matches only the current hash of a live key, and
 * revocation one that matches only a key not yet revoked. Under READ COMMITTED, concurrent
 * UPDATEs of one row wait for each other and re-check their WHERE against the committed row, so
 * of many rotations that read the same hash exactly one matches.
 */
import type { KeyRotation, KeyStore, StoredKey } from "@keyward/core";
import { type PostgresClient, queryRows } from "../client.js";
import { epochMsParam, fromEpochMs } from "../schema/epoch-ms.js";
import type { Naming } from "../schema/naming.js";
import { type KeyRow, keyColumns, toStoredKey } from "./key-row.js";

export function postgresKeyStore(client: PostgresClient, { tables }: Naming): KeyStore {
  const keys = tables.keys;
  const one = async (text: string, params: unknown[]): Promise<StoredKey | null> => {
    const [row] = await queryRows<KeyRow>(client, text, params);
    return row ? toStoredKey(row) : null;
  };

  const sql = {
    create: `INSERT INTO ${keys}
      (id, owner_id, name, scopes, tier, secret_hash, hint, created_at, expires_at, revoked_at, rotated_at,
        owner_tier, owner_type, created_by, disabled_at, metadata, limits)
      VALUES ($1, $2, $3, $4::text::jsonb, $5, $6, $7, ${fromEpochMs("$8")}, ${fromEpochMs("$9")},
        ${fromEpochMs("$10")}, ${fromEpochMs("$11")}, $12, $13, $14, ${fromEpochMs("$15")},
        $16::text::jsonb, $17::text::jsonb)`,
    findByHash: `SELECT ${keyColumns} FROM ${keys} WHERE secret_hash = $1`,
    findById: `SELECT ${keyColumns} FROM ${keys} WHERE id = $1`,
    listByOwner: `SELECT ${keyColumns} FROM ${keys} WHERE owner_id = $1 AND owner_type = $2
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    // A page after a position: keyset on the owner index, whatever the page's depth.
    listByOwnerAfter: `SELECT ${keyColumns} FROM ${keys} WHERE owner_id = $1 AND owner_type = $2
      AND (created_at, id) < (${fromEpochMs("$4")}, $5)
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    // Each field is set only when its flag is: one statement for every combination of changes.
    update: `UPDATE ${keys} SET
        name = CASE WHEN $2::boolean THEN $3 ELSE name END,
        scopes = CASE WHEN $4::boolean THEN $5::text::jsonb ELSE scopes END,
        metadata = CASE WHEN $6::boolean THEN $7::text::jsonb ELSE metadata END,
        disabled_at = CASE WHEN $8::boolean THEN ${fromEpochMs("$9")} ELSE disabled_at END
      WHERE id = $1 AND revoked_at IS NULL
      RETURNING ${keyColumns}`,
    rotate: `UPDATE ${keys} SET secret_hash = $3, hint = $4, rotated_at = ${fromEpochMs("$5")}
      WHERE id = $1 AND secret_hash = $2 AND revoked_at IS NULL
      RETURNING ${keyColumns}`,
    revoke: `UPDATE ${keys} SET revoked_at = ${fromEpochMs("$2")}
      WHERE id = $1 AND revoked_at IS NULL
      RETURNING ${keyColumns}`,
    setOwnerTier: `UPDATE ${keys} SET owner_tier = $3
      WHERE owner_id = $1 AND owner_type = $2 AND owner_tier IS DISTINCT FROM $3
      RETURNING ${keyColumns}`,
    setLimits: `UPDATE ${keys} SET limits = $2::text::jsonb WHERE id = $1 RETURNING ${keyColumns}`,
  };

  return {
    async create(key) {
      // A duplicate id or hash fails the primary key or the unique index: the error propagates.
      await client.query(sql.create, [
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
      ]);
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

    update: async (id, changes) =>
      one(sql.update, [
        id,
        changes.name !== undefined,
        changes.name ?? null,
        changes.scopes !== undefined,
        changes.scopes === undefined ? null : JSON.stringify(changes.scopes),
        changes.metadata !== undefined,
        changes.metadata == null ? null : JSON.stringify(changes.metadata),
        changes.disabledAt !== undefined,
        changes.disabledAt === undefined ? null : epochMsParam(changes.disabledAt, "disabledAt"),
      ]),

    rotate: async ({ id, expectedHash, secretHash, hint, rotatedAt }: KeyRotation) =>
      one(sql.rotate, [id, expectedHash, secretHash, hint, epochMsParam(rotatedAt, "rotatedAt")]),

    revoke: async (id, revokedAt) => one(sql.revoke, [id, epochMsParam(revokedAt, "revokedAt")]),

    async setOwnerTier(owner, tier) {
      const rows = await queryRows<KeyRow>(client, sql.setOwnerTier, [owner.id, owner.type, tier]);
      return rows.map(toStoredKey);
    },

    setLimits: async (id, limits) =>
      one(sql.setLimits, [id, limits === null ? null : JSON.stringify(limits)]),
  };
}
