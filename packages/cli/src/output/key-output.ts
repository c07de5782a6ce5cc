/**
 * How keys look in the terminal. Records carry no secret and no hash; the secret is printed by
 * `keyWithSecret` alone, which only `keys create` and `keys rotate` call. Names, metadata and ids
 * pass through `formatTable` / `formatFields`, which make them printable.
 */
import type { KeyRecord, KeyWithSecret } from "@keyward/core";
import { formatFields, formatTable } from "./table.js";

const dash = "-";

export function keyTable(records: readonly KeyRecord[]): string {
  return formatTable(
    ["ID", "NAME", "STATUS", "TIER", "SCOPES", "HINT", "CREATED", "EXPIRES", "LAST USED"],
    records.map((record) => [
      record.id,
      record.name,
      record.status,
      record.tier,
      record.scopes.join(","),
      record.hint,
      record.createdAt,
      record.expiresAt ?? dash,
      record.lastUsedAt ?? dash,
    ]),
  );
}

export function keyFields(record: KeyRecord): string {
  return formatFields([
    ["id", record.id],
    // Present only where a record differs from the contract's plain user key.
    ...present("owner", record.owner && `${record.owner.type} ${record.owner.id}`),
    ...present("created by", record.createdBy),
    ...present("environment", record.environment),
    ...present("metadata", record.metadata && JSON.stringify(record.metadata)),
    ["name", record.name],
    ["status", record.status],
    ["tier", record.tier],
    ["scopes", record.scopes.join(", ")],
    ["hint", record.hint],
    ["created", record.createdAt],
    ["expires", record.expiresAt ?? dash],
    ["last used", record.lastUsedAt ?? dash],
    // With permissions({ lastUsedAddress }): the client address of that use.
    ...present("last used from", textOf(record.lastUsedAddress)),
    ["revoked", record.revokedAt ?? dash],
    ...present("old secret until", record.previousSecretExpiresAt),
  ]);
}

/** One `label: value` line when there is a value, none otherwise. */
function present(label: string, value: string | undefined): [string, string][] {
  return value === undefined ? [] : [[label, value]];
}

/** The record, then the secret with the warning that it is shown this once. */
export function keyWithSecret(key: KeyWithSecret): string {
  const { key: secret, ...record } = key;
  return `${keyFields(record)}\n\nsecret: ${secret}\nStore it now: it is shown this once and cannot be read back.`;
}

/** Strips the secret off a create or rotate answer, for everything but its one display. */
export function recordOf(key: KeyWithSecret): KeyRecord {
  const { key: _secret, ...record } = key;
  return record;
}

/** A feature field's value when it is a text (records type them `unknown`), else undefined. */
function textOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
