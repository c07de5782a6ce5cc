/**
 * Where the demo keeps its state: in memory unless `DATABASE_URL` or `REDIS_URL` is set. The
 * PostgreSQL and Redis packages (and their drivers) are imported only when their variable is set,
 * so the in-memory demo never loads them.
 */
import { memoryStore, type Storage } from "@keyward/core";
import type { DemoConfig } from "./config.js";

export interface DemoStore {
  /** The storage to hand `createKeyward`; its `close` also ends the connections opened here. */
  storage: Storage;
  /** Which backend holds what, for the banner: `keys: PostgreSQL, usage: PostgreSQL, ...`. */
  description: string;
}

type Part = "keys" | "usage" | "rateLimits";
type Backend = { name: string; storage: Partial<Storage>; end(): Promise<void> };

/**
 * Opens the configured backends and combines them: keys and usage from PostgreSQL when there is a
 * database, rate limits from Redis when there is one (shared by every instance), anything left
 * over in memory. Applies the PostgreSQL migrations before returning, so the server never serves
 * against an old schema.
 */
export async function openDemoStore(
  config: Pick<DemoConfig, "databaseUrl" | "redisUrl">,
): Promise<DemoStore> {
  const backends: Backend[] = [];
  try {
    if (config.databaseUrl) backends.push(await openPostgres(config.databaseUrl));
    if (config.redisUrl) backends.push(await openRedis(config.redisUrl));
  } catch (error) {
    await Promise.allSettled(backends.map((backend) => backend.end()));
    throw error;
  }
  const memory: Backend = {
    name: "memory",
    storage: memoryStore(),
    end: async () => {},
  };
  // Rate limits prefer Redis (atomic, shared, expiring); keys and usage prefer the database.
  const preference: Record<Part, Backend[]> = {
    keys: [...backends, memory],
    usage: [...backends, memory],
    rateLimits: [...backends.slice().reverse(), memory],
  };
  const pick = (part: Part) => preference[part].find((backend) => backend.storage[part])!;
  const chosen = { keys: pick("keys"), usage: pick("usage"), rateLimits: pick("rateLimits") };
  const used = [...new Set(Object.values(chosen))];
  const storage: Storage = {
    keys: chosen.keys.storage.keys!,
    usage: chosen.usage.storage.usage!,
    rateLimits: chosen.rateLimits.storage.rateLimits!,
    async close() {
      await Promise.allSettled(used.map((backend) => backend.storage.close?.()));
      await Promise.allSettled([...backends, memory].map((backend) => backend.end()));
    },
  };
  const description =
    used.length === 1 && used[0] === memory
      ? "in memory (everything is lost when the server stops)"
      : `keys: ${chosen.keys.name}, usage: ${chosen.usage.name}, rate limits: ${chosen.rateLimits.name}`;
  return { storage, description };
}

async function openPostgres(connectionString: string): Promise<Backend> {
  const [{ default: pg }, { migrate, postgresStore }] = await Promise.all([
    import("pg"),
    import("@keyward/postgres"),
  ]);
  const pool = new pg.Pool({ connectionString });
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end();
    throw new Error(`Could not prepare the database at DATABASE_URL: ${describe(error)}`, {
      cause: error,
    });
  }
  return { name: "PostgreSQL", storage: postgresStore({ client: pool }), end: () => pool.end() };
}

async function openRedis(url: string): Promise<Backend> {
  const [{ Redis }, { redisStore }] = await Promise.all([
    import("ioredis"),
    import("@keyward/redis"),
  ]);
  // Fail at start rather than queueing commands forever against a Redis that is not there.
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new Error(`Could not connect to Redis at REDIS_URL: ${describe(error)}`, {
      cause: error,
    });
  }
  return {
    name: "Redis",
    storage: redisStore({ client }),
    end: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
