import type { CommandContext } from "../command.js";
import { ownerOf, printJson } from "../command.js";
import { keyWithSecret } from "../output/key-output.js";

/** `keyward keys rotate <id>`: a new secret; the old one stops working at once, everywhere. */
export async function keysRotate(context: CommandContext, id: string): Promise<void> {
  const rotated = await context.keyward.keys.rotate(await ownerOf(context, id), id);
  if (context.json) return printJson(context, rotated);
  context.print(keyWithSecret(rotated));
}
