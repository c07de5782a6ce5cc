import type { CreateKeyInput, Owner } from "@keyward/core";
import type { CommandContext } from "../command.js";
import { printJson } from "../command.js";
import { keyWithSecret } from "../output/key-output.js";

/**
 * `keyward keys create`: a key for a user or an organization, validated as `POST /api-keys`
 * validates its body. Without `--account-tier`, the owner's account tier is the one recorded with
 * its keys, so creating a key never changes the cap on the owner's other keys unless the operator
 * says so; an owner without keys takes the new key's tier.
 */
export async function keysCreate(
  context: CommandContext,
  // Picked, not omitted: the input also takes any feature's key field, which `Omit` would blur.
  input: Pick<
    CreateKeyInput,
    "name" | "scopes" | "tier" | "expiresAt" | "metadata" | "environment"
  > & {
    owner: Owner;
    createdBy: string | undefined;
    accountTier: string | undefined;
  },
): Promise<void> {
  const { createdBy, accountTier, ...rest } = input;
  const recorded = accountTier ?? (await context.keyward.keys.accountTier(input.owner));
  const created = await context.keyward.keys.create({
    ...rest,
    ...(createdBy === undefined ? {} : { createdBy }),
    accountTier: recorded ?? input.tier,
  });
  if (context.json) return printJson(context, created);
  context.print(keyWithSecret(created));
}
