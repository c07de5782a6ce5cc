import type { KeywardEvent } from "@keyward/core";
import type { CommandContext } from "../command.js";
import { ownerOf, printJson } from "../command.js";
import { badInput } from "../exit-codes.js";
import { formatTable } from "../output/table.js";

/**
 * `keyward events <id> [--limit n] [--after cursor]`: the key's audit log, newest first: every
 * change, who made it (`operator` for this CLI and the host's code, `user:<id>` through the HTTP
 * API) and what it set. Needs the events() feature in the application's `features`.
 */
export async function events(
  context: CommandContext,
  id: string,
  page: { limit: number; after: string | undefined },
): Promise<void> {
  const log = context.keyward.events;
  if (!log) {
    throw badInput(
      "the application keeps no audit log: list events() from @keyward/core/events in its createKeyward `features`",
    );
  }
  const owner = await ownerOf(context, id);
  const listed = await log.list({
    owner,
    keyId: id,
    limit: page.limit,
    ...(page.after === undefined ? {} : { after: page.after }),
  });
  if (context.json) return printJson(context, listed);
  if (listed.data.length === 0) return context.print(`no events for key ${id}`);
  const table = formatTable(
    ["OCCURRED", "TYPE", "ACTOR", "DATA"],
    listed.data.map((event) => [
      event.occurredAt,
      event.type,
      actorText(event.actor),
      JSON.stringify(event.data),
    ]),
  );
  context.print(
    listed.nextCursor === null
      ? table
      : `${table}\n\nolder events: keyward events ${id} --after ${listed.nextCursor}`,
  );
}

/** `operator`, `system`, or the type and id: `user:alice`, `secret_scanner:github`. */
function actorText(actor: KeywardEvent["actor"]): string {
  return "id" in actor ? `${actor.type}:${actor.id}` : actor.type;
}
