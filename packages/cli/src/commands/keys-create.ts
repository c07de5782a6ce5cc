import type { CreateKeyInput } from "@keyward/core";
import type { CommandContext } from "../command.js";
import { printJson } from "../command.js";
import { keyWithSecret } from "../output/key-output.js";

/**
 * `keyward keys create`: a key for an owner, validated as `POST /api-keys` validates its body. The
 * account tier defaults to the key's own tier: an operator may issue any configured tier.
 */
export async function keysCreate(
  context: CommandContext,
  input: Omit<CreateKeyInput, "accountTier"> & { accountTier: string | undefined },
): Promise<void> {
  const created = await context.keyward.keys.create({
    ...input,
    accountTier: input.accountTier ?? input.tier,
  });
  if (context.json) return printJson(context, created);
  context.print(keyWithSecret(created));
}
