/**
 * postgres.js (`postgres` on npm) speaks tagged templates, not `query(text, params)`; this adapter
 * gives the store the shape it needs, with transactions and LISTEN, from a `sql` you already have.
 */
import type { TransactionalClient } from "../client.js";
import type { NotificationSource } from "../invalidation/notification-source.js";

/** The part of a postgres.js `sql` (or transaction `sql`) used here. */
export interface PostgresJsQueryable {
  // biome-ignore lint/suspicious/noExplicitAny: postgres.js types parameters by its own serializers
  unsafe(query: string, parameters?: any[]): PromiseLike<ArrayLike<unknown>>;
}

export interface PostgresJsSql extends PostgresJsQueryable {
  // biome-ignore lint/suspicious/noExplicitAny: postgres.js's transaction type is its own `sql`
  begin<T>(work: (sql: any) => T | Promise<T>): PromiseLike<unknown>;
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    onListen?: () => void,
  ): PromiseLike<{ unlisten(): Promise<void> }>;
}

export interface PostgresJsClient extends TransactionalClient {
  readonly notifications: NotificationSource;
}

/**
 * @example
 * import postgres from "postgres";
 * const sql = postgres(process.env.DATABASE_URL);
 * const store = postgresStore({ client: postgresJsClient(sql) });
 */
export function postgresJsClient(sql: PostgresJsSql): PostgresJsClient {
  const queryWith =
    (queryable: PostgresJsQueryable) =>
    async (text: string, params: unknown[] = []) => ({
      rows: Array.from(await queryable.unsafe(text, params)),
    });
  return {
    query: queryWith(sql),
    transaction: async <T>(
      work: (transaction: { query: ReturnType<typeof queryWith> }) => Promise<T>,
    ) =>
      (await sql.begin((transaction: PostgresJsQueryable) =>
        work({ query: queryWith(transaction) }),
      )) as T,
    notifications: {
      listen(channel, onPayload, onState) {
        let stopped = false;
        // postgres.js reconnects by itself and calls onListen after every (re)connection. It does
        // not say when a connection drops, so entries cached during an outage live until it ends
        // (when "live" drops them) or their TTL runs out.
        const listening = Promise.resolve(
          sql.listen(channel, onPayload, () => {
            if (!stopped) onState("live");
          }),
        );
        listening.catch(() => onState("interrupted"));
        return async () => {
          stopped = true;
          const subscription = await listening.catch(() => undefined);
          await subscription?.unlisten();
        };
      },
    },
  };
}
