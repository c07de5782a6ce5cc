/** What every command is handed once its input is checked and the stores are open. */
import type { Keyward, KeywardStore } from "@keyward/core";
import { isKeyId } from "@keyward/core/toolkit";
import { CliError, ExitCode } from "./exit-codes.js";

export interface CommandContext {
  keyward: Keyward;
  /** The stores behind `keyward`: the CLI finds a key's owner through `storage.keys`. */
  storage: KeywardStore;
  /** Print JSON for scripts instead of text for people. */
  json: boolean;
  /** Writes one block of output, followed by a newline. */
  print(text: string): void;
}

/**
 * The owner of key `id`. The keys API acts for an owner (as the HTTP endpoints act for the signed-in
 * user); an operator names only the key, so its owner is read first.
 */
export async function ownerOf(context: CommandContext, id: string): Promise<string> {
  const key = isKeyId(id) ? await context.storage.keys.findById(id) : null;
  if (!key) throw new CliError(ExitCode.notFound, `no key with id ${id}`);
  return key.ownerId;
}

/** Prints `value` as indented JSON (for `--json`). */
export function printJson(context: CommandContext, value: unknown): void {
  context.print(JSON.stringify(value, null, 2));
}
