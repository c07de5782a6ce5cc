/**
 * Telling limit objects that a key changed. A change to a key (rotation, revocation, update,
 * limits, owner tier) notes, in the same transaction as the change, that the key's limit objects
 * must learn its new version; the `keys` object then tells them before it answers the call, so
 * once a revocation has returned, no limit call anywhere admits a request verified with the record
 * from before it. A push that fails stays noted and is retried from the object's alarm.
 */

import { callObject, type ObjectNamespace } from "../protocol/object-call.js";
import { keyObjectName, ownerObjectName } from "../protocol/object-names.js";
import type { SqlStorage } from "./durable-object-state.js";

export const versionPushSchema = `
CREATE TABLE IF NOT EXISTS version_pushes (
  target TEXT NOT NULL, key_id TEXT NOT NULL, version INTEGER NOT NULL,
  PRIMARY KEY (target, key_id)
);
`;

/** The limit objects that may hold a key's limits: its owner's, and its own (`limitObjects: "key"`). */
export function pushTargets(prefix: string, owner: string, keyId: string): string[] {
  return [ownerObjectName(prefix, owner), keyObjectName(prefix, keyId)];
}

export function versionPushes(sql: SqlStorage) {
  return {
    /** Notes a push, in the caller's transaction; a later version replaces an earlier one. */
    note(targets: readonly string[], keyId: string, version: number) {
      for (const target of targets) {
        sql.exec(
          "INSERT INTO version_pushes (target, key_id, version) VALUES (?1, ?2, ?3) ON CONFLICT (target, key_id) DO UPDATE SET version = max(version, ?3)",
          target,
          keyId,
          version,
        );
      }
    },

    pending(): boolean {
      return sql.exec("SELECT 1 FROM version_pushes LIMIT 1").toArray().length > 0;
    },

    /**
     * Delivers every noted push, one call per target object; resolves with how many targets could
     * not be told (their pushes stay noted).
     */
    async deliver(namespace: ObjectNamespace): Promise<number> {
      const rows = sql
        .exec<{ target: string; key_id: string; version: number }>(
          "SELECT target, key_id, version FROM version_pushes",
        )
        .toArray();
      const byTarget = new Map<string, { keyId: string; version: number }[]>();
      for (const row of rows) {
        const list = byTarget.get(row.target) ?? [];
        list.push({ keyId: row.key_id, version: row.version });
        byTarget.set(row.target, list);
      }
      const results = await Promise.allSettled(
        [...byTarget].map(async ([target, versions]) => {
          const stub = namespace.get(namespace.idFromName(target) as never);
          await callObject(stub, "limits.noteVersions", [versions]);
          for (const { keyId, version } of versions) {
            // Only the version told: a later change noted meanwhile stays to be pushed.
            sql.exec(
              "DELETE FROM version_pushes WHERE target = ? AND key_id = ? AND version <= ?",
              target,
              keyId,
              version,
            );
          }
        }),
      );
      return results.filter((result) => result.status === "rejected").length;
    },
  };
}
