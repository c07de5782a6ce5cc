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
        owner_tier, limits)
      VALUES ($1, $2, $3, $4::text::jsonb, $5, $6, $7, ${fromEpochMs("$8")}, ${fromEpochMs("$9")},
        ${fromEpochMs("$10")}, ${fromEpochMs("$11")}, $12, $13::text::jsonb)`,
    findByHash: `SELECT ${keyColumns} FROM ${keys} WHERE secret_hash = $1`,
    findById: `SELECT ${keyColumns} FROM ${keys} WHERE id = $1`,
    listByOwner: `SELECT ${keyColumns} FROM ${keys} WHERE owner_id = $1 ORDER BY created_at DESC, id DESC`,
    rotate: `UPDATE ${keys} SET secret_hash = $3, hint = $4, rotated_at = ${fromEpochMs("$5")}
      WHERE id = $1 AND secret_hash = $2 AND revoked_at IS NULL
      RETURNING ${keyColumns}`,
    revoke: `UPDATE ${keys} SET revoked_at = ${fromEpochMs("$2")}
      WHERE id = $1 AND revoked_at IS NULL
      RETURNING ${keyColumns}`,
    setOwnerTier: `UPDATE ${keys} SET owner_tier = $2
      WHERE owner_id = $1 AND owner_tier IS DISTINCT FROM $2
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
        key.limits == null ? null : JSON.stringify(key.limits),
      ]);
    },

    findByHash: (secretHash) => one(sql.findByHash, [secretHash]),
    findById: (id) => one(sql.findById, [id]),

    async listByOwner(ownerId) {
      const rows = await queryRows<KeyRow>(client, sql.listByOwner, [ownerId]);
      return rows.map(toStoredKey);
    },

    rotate: async ({ id, expectedHash, secretHash, hint, rotatedAt }: KeyRotation) =>
      one(sql.rotate, [id, expectedHash, secretHash, hint, epochMsParam(rotatedAt, "rotatedAt")]),

    revoke: async (id, revokedAt) => one(sql.revoke, [id, epochMsParam(revokedAt, "revokedAt")]),

    async setOwnerTier(ownerId, tier) {
      const rows = await queryRows<KeyRow>(client, sql.setOwnerTier, [ownerId, tier]);
      return rows.map(toStoredKey);
    },

    setLimits: async (id, limits) =>
      one(sql.setLimits, [id, limits === null ? null : JSON.stringify(limits)]),
  };
}
