import type { CreateKeyInput, Owner } from "@keyward/core";
import type { CommandContext } from "../command.js";
import { printJson } from "../command.js";
import { keyWithSecret } from "../output/key-output.js";

/**
 * `keyward keys create`: a key for a user or an organization, validated as `POST /api-keys`
 * validates its body. The account tier defaults to the key's own tier: an operator may issue any
 * configured tier.
 */
export async function keysCreate(
  context: CommandContext,
  input: Omit<CreateKeyInput, "accountTier" | "ownerId" | "owner" | "createdBy"> & {
    owner: Owner;
    createdBy: string | undefined;
    accountTier: string | undefined;
  },
): Promise<void> {
  const { createdBy, accountTier, ...rest } = input;
  const created = await context.keyward.keys.create({
    ...rest,
    ...(createdBy === undefined ? {} : { createdBy }),
    accountTier: accountTier ?? input.tier,
  });
  if (context.json) return printJson(context, created);
  context.print(keyWithSecret(created));
}
