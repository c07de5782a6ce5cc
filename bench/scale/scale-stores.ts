/**
 * The three stores the scale benchmark runs on, each behind one interface: open a fresh store (a
 * new schema, a new Redis prefix), seed N key records the way the store itself writes them, measure
 * what its keys and usage occupy, open a second instance with a cold cache, and clean up.
 *
 * Seeding never goes through plaintext keys: a seeded record is a real record made by the store
 * (a template created through `keyward.keys.create`) with a new id, owner and a secret hash that is
 * the SHA-256 of a throwaway seed. Only the sample keys the benchmark verifies are created through
 * Keyward, so only they have secrets, held in memory by the benchmark and never stored.
 */
import { createHash } from "node:crypto";
import type { KeywardStore, StoredKey } from "@keyward/core";
import { memoryStore } from "@keyward/core";
import { memoryRateLimitStore } from "@keyward/core/toolkit";
import { postgresStore } from "@keyward/postgres";
import { redisStore } from "@keyward/redis";
import IORedis from "ioredis";
import pg from "pg";
// The store's own record encoding (internal to @keyward/redis): seeded records are byte for byte
// what its create script writes.
import { toKeyFields } from "../../packages/redis/src/keys/key-fields.js";

export type StoreKind = "memory" | "postgres" | "redis";

export interface ScaleStore {
  kind: StoreKind;
  /** The store Keyward runs on. */
  store: KeywardStore;
  /** Writes `count` copies of `template` with ids `seed_<from>…`, owners by `ownerOf(i)`. */
  seed(
    template: StoredKey,
    from: number,
    count: number,
    ownerOf: (i: number) => string,
  ): Promise<void>;
  /** Bytes the key records and their indexes occupy (memory: V8 heap used after a GC). */
  keyBytes(): Promise<number>;
  /** Bytes the usage of `keyIds` occupies (a sample of the keys that have usage). */
  usageBytes(keyIds: readonly string[]): Promise<number>;
  /** A second instance over the same data with an empty verification cache. */
  coldInstance(): Promise<KeywardStore>;
  close(): Promise<void>;
}

export const seedHash = (i: number) =>
  createHash("sha256").update(`kwscale-seed-${i}`).digest("hex");

export function seededKey(template: StoredKey, i: number, ownerId: string): StoredKey {
  return {
    ...template,
    id: `seed_${i}`,
    ownerId,
    createdBy: ownerId,
    secretHash: seedHash(i),
    createdAt: template.createdAt - i,
  };
}

const gc = () => (globalThis as { gc?: () => void }).gc?.();

export function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

export async function openMemory(): Promise<ScaleStore> {
  const store = memoryStore();
  return {
    kind: "memory",
    store,
    async seed(template, from, count, ownerOf) {
      for (let i = from; i < from + count; i++) {
        await store.keys.create(seededKey(template, i, ownerOf(i)));
      }
    },
    keyBytes: async () => heapUsed(),
    usageBytes: async () => heapUsed(),
    // The memory store has no cache: every instance reads the same maps.
    coldInstance: async () => store,
    async close() {},
  };
}

export async function openPostgres(url: string, tag: string): Promise<ScaleStore> {
  await createDatabaseIfMissing(url);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const schema = `kwscale_${tag}`;
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  const opened: { close(): Promise<void> }[] = [];
  const open = () => {
    const store = postgresStore({ client: pool, schema });
    opened.push(store);
    return { ...store, rateLimits: memoryRateLimitStore() } as KeywardStore & typeof store;
  };
  const store = open();
  await store.migrate();
  await store.ready;
  const { keys, usage } = store.tables;
  return {
    kind: "postgres",
    store,
    async seed(template, from, count, ownerOf) {
      // Server-side: the template row copied with new ids, owners and hashes, 100,000 rows per
      // INSERT. Owners come from `ownerOf`, evaluated here and sent as one array per batch.
      const columns = (
        await pool.query<{ column_name: string }>(
          `SELECT column_name FROM information_schema.columns
           WHERE table_schema = $1 AND table_name = 'keyward_keys' ORDER BY ordinal_position`,
          [schema],
        )
      ).rows.map((row) => row.column_name);
      const expression: Record<string, string> = {
        id: "'seed_' || i",
        owner_id: "o.owner",
        created_by: "o.owner",
        secret_hash: "encode(sha256(convert_to('kwscale-seed-' || i, 'UTF8')), 'hex')",
        created_at: "t.created_at - make_interval(secs => i / 1000.0)",
      };
      const select = columns.map((name) => expression[name] ?? `t.${name}`).join(", ");
      for (let start = from; start < from + count; start += 100_000) {
        const end = Math.min(from + count, start + 100_000);
        const owners = Array.from({ length: end - start }, (_, k) => ownerOf(start + k));
        await pool.query(
          `INSERT INTO ${keys} (${columns.join(", ")})
           SELECT ${select}
           FROM ${keys} t, unnest($2::text[]) WITH ORDINALITY AS o(owner, n),
             LATERAL (SELECT ($3::int + n - 1)::int AS i) AS s
           WHERE t.id = $1`,
          [template.id, owners, start],
        );
      }
      await pool.query(`ANALYZE ${keys}`);
    },
    async keyBytes() {
      const { rows } = await pool.query<{ bytes: string }>(
        `SELECT pg_total_relation_size('${keys}') AS bytes`,
      );
      return Number(rows[0]!.bytes);
    },
    async usageBytes() {
      await pool.query(`VACUUM ANALYZE ${usage}`);
      const { rows } = await pool.query<{ bytes: string }>(
        `SELECT pg_total_relation_size('${usage}') AS bytes`,
      );
      return Number(rows[0]!.bytes);
    },
    async coldInstance() {
      const cold = open();
      await cold.ready;
      return cold;
    },
    async close() {
      for (const store of opened) await store.close();
      await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await pool.end();
    },
  };
}

export async function openRedis(url: string, tag: string): Promise<ScaleStore> {
  const prefix = `kwscale:${tag}:`;
  const clients: IORedis[] = [];
  const opened: { close(): Promise<void> }[] = [];
  const open = () => {
    const client = new IORedis(url);
    clients.push(client);
    const store = redisStore({ client, prefix, keys: true, timeoutMs: 10_000 });
    opened.push(store);
    return store as unknown as KeywardStore;
  };
  const admin = new IORedis(url);
  const store = open();
  // Seeded ids run from seed_0 up: the first few hundred are a sample of ordinary records.
  const sampleKeyNames = async (count: number) =>
    Array.from({ length: count }, (_, i) => `${prefix}{keys}:id:seed_${i}`);
  return {
    kind: "redis",
    store,
    async seed(template, from, count, ownerOf) {
      // What the store's create script writes (record hash, hash index, owner set and the owner's
      // listing index), sent as pipelines of 5,000 keys instead of one script call each.
      for (let start = from; start < from + count; start += 5_000) {
        const pipeline = admin.pipeline();
        for (let i = start; i < Math.min(from + count, start + 5_000); i++) {
          const key = seededKey(template, i, ownerOf(i));
          pipeline.hset(`${prefix}{keys}:id:${key.id}`, ...toKeyFields(key));
          pipeline.set(`${prefix}{keys}:hash:${key.secretHash}`, key.id);
          pipeline.sadd(`${prefix}{keys}:owner:${key.ownerId}`, key.id);
          pipeline.zadd(`${prefix}{keys}:owner-newest:${key.ownerId}`, key.createdAt, key.id);
        }
        await pipeline.exec();
      }
    },
    async keyBytes() {
      // MEMORY USAGE (with all samples of nested values) of a sample of records and their hash
      // index entries; the owner sets add one member per key, measured on one typical set.
      const names = await sampleKeyNames(300);
      let record = 0;
      let index = 0;
      for (const name of names) {
        record += Number(await admin.call("MEMORY", "USAGE", name, "SAMPLES", "0"));
        const id = name.slice(`${prefix}{keys}:id:`.length);
        const i = Number(id.slice("seed_".length));
        index += Number(
          await admin.call(
            "MEMORY",
            "USAGE",
            `${prefix}{keys}:hash:${seedHash(i)}`,
            "SAMPLES",
            "0",
          ),
        );
      }
      return (record + index) / names.length;
    },
    async usageBytes(keyIds) {
      let total = 0;
      for (const id of keyIds) {
        total += Number(
          (await admin.call("MEMORY", "USAGE", `${prefix}usage:{key:${id}}`, "SAMPLES", "0")) ?? 0,
        );
      }
      return total;
    },
    coldInstance: async () => open(),
    async close() {
      for (const store of opened) await store.close();
      for (const client of clients) client.disconnect();
      let cursor = "0";
      do {
        const [next, keys] = await admin.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 5_000);
        cursor = next;
        if (keys.length > 0) await admin.unlink(...keys);
      } while (cursor !== "0");
      admin.disconnect();
    },
  };
}

/**
 * The benchmark's own database (default `kw_scale`), created on first use through the server's
 * `postgres` database, so that a fresh machine needs no step beyond the command.
 */
async function createDatabaseIfMissing(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new TypeError(`The scale benchmark's database name must be a plain identifier: ${name}`);
  }
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}
