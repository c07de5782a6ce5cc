import type { CommandContext } from "../command.js";
import { printJson } from "../command.js";
import { keyTable } from "../output/key-output.js";

/** `keyward keys list --owner <id>`: every key of the owner, newest first, revoked ones included. */
export async function keysList(context: CommandContext, owner: string): Promise<void> {
  const keys = await context.keyward.keys.list(owner);
  if (context.json) return printJson(context, { data: keys });
  context.print(keys.length === 0 ? `no keys for owner ${owner}` : keyTable(keys));
}
