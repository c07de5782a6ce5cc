/**
 * The server under test in `forged-key-flood.ts`, in a process of its own so the load generators
 * do not share its event loop: Node's `http` server, the Fetch adapter's `withApiKey` guarding
 * `GET /api/v1/profiles/:slug`, keys on PostgreSQL (`postgresStore` with its verification cache)
 * and rate limits in memory. The client address is the socket's. The route's handler runs one
 * query of its own on the same pool (not counted as a key lookup), unless `FLOOD_HOST_QUERY=off`.
 *
 * Configured by the environment: `FLOOD_SCHEMA` (already migrated), `FLOOD_LIMITER` (`on` for the
 * default `failedLookups`, `off` for `failedLookups: false`). Tells its parent `{ port }` once
 * listening, and answers a `"stats"` message with the statements its pool has run so far.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createKeyward } from "@keyward/core";
import { toFetchRequest } from "@keyward/core/node-http";
import { memoryRateLimitStore } from "@keyward/core/toolkit";
import { postgresStore } from "@keyward/postgres";
import pg from "pg";
// The bench has no dependency on @keyward/fetch (adding one would touch the shared lockfile), so
// the adapter is imported from its source.
import { withApiKey } from "../../packages/fetch/src/index.js";

export interface ServerStats {
  /** `SELECT … WHERE secret_hash = $1`: verification's key lookups that reached the database. */
  keyLookups: number;
  /** Every statement through the pool (lookups, usage writes). */
  queries: number;
  /** CPU time this process has used, user + system, in ms. */
  cpuMs: number;
}

const schema = process.env.FLOOD_SCHEMA;
if (!schema) throw new Error("FLOOD_SCHEMA is not set");
const limiterOn = process.env.FLOOD_LIMITER === "on";
const hostQuery = process.env.FLOOD_HOST_QUERY !== "off";

const pool = new pg.Pool({
  connectionString: "postgresql://postgres@127.0.0.1:5432/test",
  max: 10,
});
const stats: Omit<ServerStats, "cpuMs"> = { keyLookups: 0, queries: 0 };
// Counted in front of the pool; connect and idleCount pass through, so the store still treats it as
// a pool and listens for invalidations on a connection of its own.
const counted = {
  query(text: string, params?: unknown[]) {
    stats.queries++;
    if (text.startsWith("SELECT") && text.includes("WHERE secret_hash = $1")) stats.keyLookups++;
    return pool.query(text, params);
  },
  connect: () => pool.connect(),
  get idleCount() {
    return pool.idleCount;
  },
};
const store = postgresStore({ client: counted, schema });
await store.ready;

const keyward = createKeyward({
  store: { keys: store.keys, usage: store.usage, rateLimits: memoryRateLimitStore() },
  scopes: { "profile:read": "Read profiles" },
  tiers: { free: { rateLimit: { limit: 1_000_000_000, window: "1m" } } },
  ...(limiterOn ? {} : { failedLookups: false as const }),
});

const getProfile = withApiKey(
  keyward,
  {
    scopes: ["profile:read"],
    route: "GET /api/v1/profiles/:slug",
    clientIp: (_request, address: string | undefined) => address,
  },
  // The host's own work on the same database, as a real profile route would read the profile: a
  // flood that fills the pool with key lookups makes this wait.
  async () => {
    if (!hostQuery) return Response.json({ slug: "bench" });
    const { rows } = await pool.query("SELECT $1::text AS slug", ["bench"]);
    return Response.json(rows[0]);
  },
);

const server = createServer((req, res) => {
  const answer = req.url?.startsWith("/api/v1/profiles/")
    ? getProfile(
        toFetchRequest(req, { origin: "http://127.0.0.1", path: req.url }),
        req.socket.remoteAddress,
      )
    : Promise.resolve(Response.json({ detail: "Not Found" }, { status: 404 }));
  answer.then(
    async (response) => {
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(new Uint8Array(await response.arrayBuffer()));
    },
    () => {
      res.writeHead(500).end();
    },
  );
});
server.keepAliveTimeout = 30_000;
server.listen(0, "127.0.0.1", () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});

process.on("message", (message) => {
  if (message === "stats") {
    const { user, system } = process.cpuUsage();
    process.send?.({ stats: { ...stats, cpuMs: (user + system) / 1_000 } });
  }
  if (message === "stop") {
    server.closeAllConnections();
    server.close();
    void keyward
      .close()
      .then(() => store.close())
      .then(() => pool.end())
      .then(() => process.exit(0));
  }
});
