/**
 * One Keyward instance with budgets in its own Node process, for the killed-host test
 * (budgets-killed-host.test.ts): keys, the credits' durable balance and the holds in PostgreSQL,
 * rate limits and the budget's balance in Redis, on the system clock (the holds where
 * KEYWARD_TEST_HOLDS_IN says). Over IPC it reserves holds and answers their ids; it never settles
 * them: the test kills it with SIGKILL holding them.
 */
import IORedis from "ioredis";
import pg from "pg";
import { localRedis } from "../../../redis/test/support/redis-url.js";
import { type HoldsIn, holdKeyward, requiredScopes, route } from "./hold-keyward.js";

export type HoldCommand =
  | { type: "reserve"; header: string; count: number; cost: number }
  | { type: "close" };

const holdsIn = process.env.KEYWARD_TEST_HOLDS_IN as HoldsIn;
if (holdsIn !== "postgres" && holdsIn !== "redis") {
  throw new Error(`KEYWARD_TEST_HOLDS_IN: "postgres" or "redis", got ${String(holdsIn)}`);
}
const pool = new pg.Pool({ connectionString: process.env.KEYWARD_TEST_DATABASE_URL, max: 4 });
pool.on("error", () => {});
const client = new IORedis(localRedis);
client.on("error", () => {});
const keyward = holdKeyward({
  pool,
  client,
  schema: process.env.KEYWARD_TEST_SCHEMA!,
  redisPrefix: process.env.KEYWARD_TEST_REDIS_PREFIX!,
  holdsIn,
  logger: { error: (message) => console.error(message), warn() {} },
});

async function handle(command: HoldCommand): Promise<unknown> {
  switch (command.type) {
    case "reserve": {
      const ids: string[] = [];
      for (let i = 0; i < command.count; i++) {
        const reserved = await keyward.budgets.reserve(command.header, {
          scopes: requiredScopes,
          route,
          cost: command.cost,
        });
        if (!reserved.ok) throw new Error(`reservation ${i} refused: ${reserved.error.status}`);
        ids.push(reserved.hold.id);
      }
      return ids;
    }
    case "close":
      await keyward.close();
      client.disconnect();
      await pool.end();
      setTimeout(() => process.exit(0), 10);
      return null;
  }
}

process.on("message", (message: { id: number; command: HoldCommand }) => {
  handle(message.command).then(
    (value) => process.send!({ id: message.id, type: "result", value }),
    (error: Error) => process.send!({ id: message.id, type: "error", message: error.message }),
  );
});
process.send!({ id: 0 });
