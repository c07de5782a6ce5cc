import type { CommandContext } from "../command.js";
import { ownerOf, printJson } from "../command.js";
import { keyWithSecret } from "../output/key-output.js";

/**
 * `keyward keys rotate <id> [--grace <seconds>]`: a new secret. The old one stops working at once,
 * everywhere, or with `--grace` when those seconds have passed.
 */
export async function keysRotate(
  context: CommandContext,
  id: string,
  graceSeconds: number | undefined,
): Promise<void> {
  const rotated = await context.keyward.keys.rotate(await ownerOf(context, id), id, {
    ...(graceSeconds === undefined ? {} : { gracePeriodSeconds: graceSeconds }),
  });
  if (context.json) return printJson(context, rotated);
  context.print(keyWithSecret(rotated));
}
