import type { PostgresStore } from "@keyward/postgres";

/**
 * `keyward migrate`: applies pending PostgreSQL migrations (idempotent, safe beside running
 * instances). Redis keeps no schema, so with only `REDIS_URL` there is nothing to do.
 */
export async function migrate(
  postgres: PostgresStore | undefined,
  json: boolean,
  print: (text: string) => void,
): Promise<void> {
  if (!postgres) {
    if (json) print(JSON.stringify({ store: "redis", applied: [] }, null, 2));
    else print("Redis needs no migrations; nothing to do.");
    return;
  }
  const result = await postgres.migrate();
  if (json) {
    print(JSON.stringify({ store: "postgres", ...result }, null, 2));
    return;
  }
  print(
    result.applied.length === 0
      ? `PostgreSQL schema is current (version ${result.version}).`
      : `Applied migration${result.applied.length === 1 ? "" : "s"} ${result.applied.join(", ")}; PostgreSQL schema is at version ${result.version}.`,
  );
}
