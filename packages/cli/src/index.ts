/**
 * @keyward/cli — `keyward`, an operator's tool for Keyward: list, create, rotate and revoke keys,
 * read their usage and audit log through the application's own Keyward instance (`--app`), and
 * apply PostgreSQL migrations. The executable is the product; `run` is exported for tools that
 * embed it.
 */
export { CliError, ExitCode } from "./exit-codes.js";
export { type RunEnvironment, run } from "./run.js";
