/**
 * @keyward/cli — `keyward`, an operator's tool for Keyward: list, create, rotate and revoke keys,
 * read their usage, and apply PostgreSQL migrations, against `DATABASE_URL` / `REDIS_URL`. The
 * executable is the product; `run` is exported for tools that embed it.
 */
export { type CliConfig, defaultConfigFile } from "./config.js";
export { CliError, ExitCode } from "./exit-codes.js";
export { type RunEnvironment, run } from "./run.js";
