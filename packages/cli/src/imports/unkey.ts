/**
 * `keyward import unkey <file.json>`: the keys of the body Unkey's key migration endpoint takes
 * (`migrations.createKeys`: a list; `keys.migrateKeys`: `{ keys: [...] }`). Each key's `hash` is
 * `{ value, variant: "sha256_base64" }` (or the value alone, that variant), or `plaintext` is given;
 * `prefix`, `name`, the owner (`externalId`, or the older `ownerId`), `permissions` (scopes as
 * they are), `meta`, `expires` (epoch ms), `enabled`, and `remaining` with `refill`
 * (or `credits: { remaining, refill }`), `interval` "daily" or "monthly".
 */
import { readFile } from "node:fs/promises";
import { isoTime, type SourceRecords } from "./source-records.js";

type UnkeyKey = Record<string, unknown>;

export async function readUnkey(file: string, tier: string): Promise<SourceRecords> {
  let body: unknown;
  try {
    body = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new Error(`cannot read ${file} as JSON: ${(error as Error).message}`);
  }
  const keys = Array.isArray(body) ? body : (body as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) {
    throw new Error(`${file} holds neither a list of keys nor { "keys": [...] }`);
  }
  const result: SourceRecords = { records: [], unmapped: [] };
  keys.forEach((key: unknown, index) => {
    const where = `keys[${index}]`;
    try {
      if (typeof key !== "object" || key === null) throw new Error("not an object");
      result.records.push({ source: where, record: recordOf(key as UnkeyKey, tier) });
    } catch (error) {
      result.unmapped.push({ source: where, reason: (error as Error).message });
    }
  });
  return result;
}

function recordOf(key: UnkeyKey, tier: string): Record<string, unknown> {
  const owner = key.externalId ?? key.ownerId;
  const credits = (key.credits as UnkeyKey | undefined) ?? key;
  return {
    ...secretOf(key),
    ...(typeof key.prefix === "string" ? { prefix: prefixOf(key.prefix) } : {}),
    ...(key.name === undefined || key.name === null ? {} : { name: key.name }),
    owner,
    scopes: key.permissions ?? [],
    tier: typeof key.tier === "string" ? key.tier : tier,
    expiresAt: isoTime(key.expires, "expires"),
    metadata: key.meta ?? null,
    enabled: key.enabled !== false,
    credits:
      credits.remaining === undefined || credits.remaining === null
        ? null
        : { remaining: credits.remaining, ...refillOf(credits.refill) },
  };
}

function secretOf(key: UnkeyKey) {
  if (typeof key.plaintext === "string") return { key: key.plaintext };
  const hash = key.hash as { value?: unknown; variant?: unknown } | string | undefined;
  const value = typeof hash === "string" ? hash : hash?.value;
  const variant = typeof hash === "string" ? "sha256_base64" : hash?.variant;
  if (typeof value !== "string") throw new Error("has neither hash nor plaintext");
  if (variant !== "sha256_base64") {
    throw new Error(`hash variant ${JSON.stringify(variant)}: only sha256_base64 is known`);
  }
  return { hash: { value, algorithm: "sha256", encoding: "base64" } };
}

/** Unkey joins prefix and key with "_" (`sk_1234…`): the token begins with the prefix and "_". */
function prefixOf(prefix: string): string {
  return prefix === "" || prefix.endsWith("_") ? prefix : `${prefix}_`;
}

function refillOf(refill: unknown) {
  if (refill === undefined || refill === null) return {};
  const { interval, amount } = refill as { interval?: unknown; amount?: unknown };
  const period = interval === "daily" ? "day" : interval === "monthly" ? "month" : undefined;
  if (period === undefined) {
    throw new Error(
      `refill interval ${JSON.stringify(interval)}: Keyward's credits refill "daily" or "monthly"`,
    );
  }
  return { refill: { amount, period } };
}
