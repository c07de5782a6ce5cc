import type { Owner } from "@keyward/core";
import type { CommandContext } from "../command.js";
import { ownerText, printJson } from "../command.js";
import { keyTable } from "../output/key-output.js";
import { printable } from "../output/printable.js";

/**
 * `keyward keys list --owner <id>` or `--org <id>`: every key of the user or organization, newest
 * first, revoked ones included.
 */
export async function keysList(context: CommandContext, owner: Owner): Promise<void> {
  const keys = await context.keyward.keys.list(owner);
  if (context.json) return printJson(context, { data: keys });
  context.print(keys.length === 0 ? `no keys for ${printable(ownerText(owner))}` : keyTable(keys));
}
