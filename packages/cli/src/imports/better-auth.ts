/**
 * `keyward import better-auth --from <postgres-url>`: reads better-auth's API-key table (the
 * `@better-auth/api-key` plugin, 1.7) as it writes it: `key` is the token's SHA-256 in base64url
 * without padding (its `defaultKeyHasher`), `prefix` and `start` as given, `permissions` a JSON
 * statement `{ resource: [action] }` (each pair becomes the scope `resource:action`), `remaining`
 * with `refillAmount` every `refillInterval` ms (credits, refilled per UTC day or month),
 * `metadata` JSON, `enabled`, `expiresAt`, `createdAt`, `lastRequest` (the key's last use), and
 * `referenceId`, the user, or the
 * organization for the configurations (`configId`) whose `references` is "organization".
 */
import { importOptional } from "../optional-dependency.js";
import { isoTime, type SourceRecords, scopesOfPermissions } from "./source-records.js";

export interface BetterAuthSource {
  /** The PostgreSQL database better-auth writes to. */
  url: string;
  /** The API-key table; default `apikey`, in the connection's search path. */
  table: string;
  /** The configurations (`configId`) whose keys belong to organizations. */
  organizationConfigs: readonly string[];
  /** The Keyward tier every imported key gets (better-auth has none). */
  tier: string;
  /** How long reading may take before it is given up, ms. */
  timeoutMs: number;
}

const day = 86_400_000;
/** better-auth counts refills in ms; Keyward refills per UTC calendar day or month. */
const periodOfInterval = (interval: number): "day" | "month" | undefined =>
  interval === day ? "day" : interval >= 28 * day && interval <= 31 * day ? "month" : undefined;

/** A row of better-auth's API-key table, the columns read. */
export interface ApiKeyRow {
  id: string;
  configId: string | null;
  name: string | null;
  prefix: string | null;
  key: string;
  referenceId: string;
  enabled: boolean | null;
  expiresAt: Date | null;
  createdAt: Date;
  lastRequest: Date | null;
  permissions: string | null;
  metadata: string | null;
  remaining: number | null;
  refillAmount: number | null;
  refillInterval: number | null;
}

export async function readBetterAuth(source: BetterAuthSource): Promise<SourceRecords> {
  const { default: pg } = await importOptional<typeof import("pg")>({
    specifier: "pg",
    packageName: "pg",
    neededBy: "keyward import better-auth",
  });
  const client = new pg.Client({
    connectionString: source.url,
    connectionTimeoutMillis: source.timeoutMs,
    statement_timeout: source.timeoutMs,
    query_timeout: source.timeoutMs,
  });
  await client.connect();
  try {
    const table = source.table.split(".").map(quoteIdentifier).join(".");
    const { rows } = await client.query<ApiKeyRow>(
      `SELECT id, "configId", name, prefix, key, "referenceId", enabled, "expiresAt", "createdAt",
        "lastRequest", permissions, metadata, remaining, "refillAmount", "refillInterval"
      FROM ${table} ORDER BY "createdAt", id`,
    );
    return mapRows(rows, source);
  } finally {
    await client.end().catch(() => {});
  }
}

/** The rows as import records; a row Keyward cannot express is listed with why. */
export function mapRows(
  rows: readonly ApiKeyRow[],
  source: Pick<BetterAuthSource, "organizationConfigs" | "tier">,
): SourceRecords {
  const organizations = new Set(source.organizationConfigs);
  const result: SourceRecords = { records: [], unmapped: [] };
  for (const row of rows) {
    const where = `apikey row ${row.id}`;
    try {
      const credits =
        row.remaining === null || row.remaining === undefined
          ? null
          : { remaining: Number(row.remaining), ...refillOf(row) };
      result.records.push({
        source: where,
        record: {
          hash: { value: row.key, algorithm: "sha256", encoding: "base64url" },
          prefix: row.prefix ?? "",
          owner: {
            type: organizations.has(row.configId ?? "default") ? "organization" : "user",
            id: row.referenceId,
          },
          ...(row.name ? { name: row.name } : {}),
          scopes: scopesOfPermissions(parseJson(row.permissions, "permissions")),
          tier: source.tier,
          expiresAt: isoTime(row.expiresAt, "expiresAt"),
          createdAt: isoTime(row.createdAt, "createdAt"),
          lastUsedAt: isoTime(row.lastRequest, "lastRequest"),
          metadata: metadataOf(row.metadata),
          enabled: row.enabled !== false,
          credits,
        },
      });
    } catch (error) {
      result.unmapped.push({ source: where, reason: (error as Error).message });
    }
  }
  return result;
}

function refillOf(row: ApiKeyRow) {
  if (row.refillInterval === null || row.refillAmount === null) return {};
  const period = periodOfInterval(Number(row.refillInterval));
  if (period === undefined) {
    throw new Error(
      `refills every ${row.refillInterval} ms; Keyward's credits refill per UTC day or month`,
    );
  }
  return { refill: { amount: Number(row.refillAmount), period } };
}

/** better-auth stores JSON as text, metadata sometimes twice encoded (a JSON string of JSON). */
function parseJson(text: string | null, field: string): unknown {
  if (text === null || text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${field} is not JSON`);
  }
}

function metadataOf(text: string | null): unknown {
  let value = parseJson(text, "metadata");
  if (typeof value === "string") value = parseJson(value, "metadata");
  return value ?? null;
}

function quoteIdentifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) {
    throw new Error(`--table ${JSON.stringify(name)} is not a table name`);
  }
  return `"${name}"`;
}
