import type { CommandContext } from "../command.js";
import { ownerOf, printJson } from "../command.js";
import { formatFields } from "../output/table.js";

/** `keyward keys revoke <id>`: permanent; the key still lists, as revoked. */
export async function keysRevoke(context: CommandContext, id: string): Promise<void> {
  const revoked = await context.keyward.keys.revoke(await ownerOf(context, id), id);
  if (context.json) return printJson(context, revoked);
  context.print(
    formatFields([
      ["id", revoked.id],
      ["status", revoked.status],
      ["revoked", revoked.revokedAt],
    ]),
  );
}
