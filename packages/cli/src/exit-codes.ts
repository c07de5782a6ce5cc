/**
 * The exit codes scripts can rely on (docs/cli.md). Every failure is one `CliError` carrying its
 * code, so the one place that prints it also decides the exit status.
 */
export const ExitCode = {
  /** The command did what it was asked. */
  ok: 0,
  /** Usage or input the command refuses: an unknown command or option, a missing value, a value
   * Keyward's validation refuses, a configuration file that cannot be used. Nothing was changed. */
  badInput: 1,
  /** The key does not exist, or its state forbids the change (already revoked, expired). */
  notFound: 2,
  /** A store could not be reached or used (connection refused, timeout, schema not migrated). */
  storeUnavailable: 3,
  /** `usage reconcile`: the ledger and the billing sink differ for some customer. */
  differs: 4,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export class CliError extends Error {
  readonly exitCode: ExitCode;

  constructor(exitCode: ExitCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}

export const badInput = (message: string) => new CliError(ExitCode.badInput, message);
