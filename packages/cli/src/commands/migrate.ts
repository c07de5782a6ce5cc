/**
 * `keyward migrate`: applies pending PostgreSQL migrations (idempotent, safe beside running
 * instances) to the database `DATABASE_URL` names, in `--schema` with `--table-prefix` when the
 * application names its tables so. It needs no application: a deploy step runs it before the
 * application starts. Redis keeps no schema, so with only `REDIS_URL` there is nothing to do.
 */
import { CliError, ExitCode } from "../exit-codes.js";
import { describeFailure } from "../failure.js";
import { importOptional } from "../optional-dependency.js";

/** How long a connection attempt may take before the database counts as unreachable. */
const connectTimeoutMs = 3_000;

export interface MigrateOptions {
  env: NodeJS.ProcessEnv;
  schema: string | undefined;
  tablePrefix: string | undefined;
  json: boolean;
  print(text: string): void;
}

export async function migrate(options: MigrateOptions): Promise<void> {
  const { env, json, print } = options;
  const databaseUrl = env.DATABASE_URL || undefined;
  if (!databaseUrl) {
    if (!env.REDIS_URL) {
      throw new CliError(ExitCode.badInput, "set DATABASE_URL (or REDIS_URL, which needs none)");
    }
    if (json) print(JSON.stringify({ store: "redis", applied: [] }, null, 2));
    else print("Redis needs no migrations; nothing to do.");
    return;
  }
  // Loaded here: the other commands reach PostgreSQL, if at all, through the application, and a
  // Redis-only host installs neither package.
  const neededBy = "keyward migrate on PostgreSQL (DATABASE_URL)";
  const installWith = ["pg", "@keyward/postgres"];
  const [{ default: pg }, { migrate: migratePostgres }] = await Promise.all([
    importOptional<typeof import("pg")>({
      specifier: "pg",
      packageName: "pg",
      neededBy,
      installWith,
    }),
    importOptional<typeof import("@keyward/postgres")>({
      specifier: "@keyward/postgres",
      packageName: "@keyward/postgres",
      neededBy,
      installWith,
    }),
  ]);
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    connectionTimeoutMillis: connectTimeoutMs,
  });
  // An idle connection that fails would otherwise end the process with an unhandled 'error'.
  pool.on("error", () => {});
  try {
    try {
      (await pool.connect()).release();
    } catch (error) {
      throw new CliError(
        ExitCode.storeUnavailable,
        `cannot reach PostgreSQL at DATABASE_URL: ${describeFailure(error)}`,
        { cause: error },
      );
    }
    const result = await migratePostgres(pool, {
      ...(options.schema === undefined ? {} : { schema: options.schema }),
      ...(options.tablePrefix === undefined ? {} : { tablePrefix: options.tablePrefix }),
    });
    if (json) {
      print(JSON.stringify({ store: "postgres", ...result }, null, 2));
      return;
    }
    print(
      result.applied.length === 0
        ? `PostgreSQL schema is current (version ${result.version}).`
        : `Applied migration${result.applied.length === 1 ? "" : "s"} ${result.applied.join(", ")}; PostgreSQL schema is at version ${result.version}.`,
    );
  } finally {
    await pool.end().catch(() => {});
  }
}
