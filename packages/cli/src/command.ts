/** What every command is handed once its input is checked and the application is loaded. */
import type { Keyward, Owner } from "@keyward/core";
import type { EventsApi } from "@keyward/core/events";
import type { ImportsApi } from "@keyward/core/imports";
import { CliError, ExitCode } from "./exit-codes.js";
import type { Progress } from "./imports/progress.js";
import { keywardErrorOf } from "./keyward-error.js";
import { printable, printableJson } from "./output/printable.js";

export interface CommandContext {
  /** The application's own instance: every change goes through its API, as the host's would. */
  /** The application's instance; `events` when it lists the events() feature. */
  keyward: Keyward & { readonly events?: EventsApi; readonly imports?: ImportsApi };
  /** Print JSON for scripts instead of text for people. */
  json: boolean;
  /** Writes one block of output, followed by a newline. */
  print(text: string): void;
  /** A progress bar for long work, when stderr is a terminal; otherwise absent. */
  progress?: Progress;
}

/**
 * The owner of key `id`. The keys API acts for an owner (as the HTTP endpoints act for the signed-in
 * user); an operator names only the key, so its owner is read first, a user or an organization.
 */
export async function ownerOf(context: CommandContext, id: string): Promise<Owner> {
  try {
    return (await context.keyward.keys.get(id)).owner;
  } catch (error) {
    if (keywardErrorOf(error)?.code === "key_not_found") {
      throw new CliError(ExitCode.notFound, `no key with id ${printable(id)}`);
    }
    throw error;
  }
}

/** `user alice` or `organization acme`, for people. */
export function ownerText(owner: Owner): string {
  return `${owner.type} ${owner.id}`;
}

/** Prints `value` as indented JSON (for `--json`), with nothing in it a terminal would act on. */
export function printJson(context: CommandContext, value: unknown): void {
  context.print(printableJson(value));
}
