import type { CommandContext } from "../command.js";
import { ownerOf, printJson } from "../command.js";
import { formatFields, formatTable } from "../output/table.js";

/** `keyward usage <id>`: totals, per method and route template, and per UTC day. */
export async function usage(context: CommandContext, id: string): Promise<void> {
  const report = await context.keyward.keys.usage(await ownerOf(context, id), id);
  if (context.json) return printJson(context, report);
  const blocks = [
    formatFields([
      ["key", report.keyId],
      ["total requests", String(report.totalRequests)],
      ["last used", report.lastUsedAt ?? "-"],
      // With permissions({ lastUsedAddress }): the client address of that use.
      ...(report.lastUsedAddress === undefined
        ? []
        : [["last used from", report.lastUsedAddress] as [string, string]]),
    ]),
  ];
  if (report.endpoints.length > 0) {
    blocks.push(
      formatTable(
        ["METHOD", "ROUTE", "COUNT"],
        report.endpoints.map((entry) => [entry.method, entry.route, String(entry.count)]),
      ),
    );
  }
  if (report.daily.length > 0) {
    blocks.push(
      formatTable(
        ["DATE", "COUNT"],
        report.daily.map((day) => [day.date, String(day.count)]),
      ),
    );
  }
  context.print(blocks.join("\n\n"));
}
