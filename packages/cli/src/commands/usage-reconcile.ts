import type { CommandContext } from "../command.js";
import { printJson } from "../command.js";
import { badInput, CliError, ExitCode } from "../exit-codes.js";
import { printable } from "../output/printable.js";
import { formatTable } from "../output/table.js";

/** What `keyward.metering.reconcile` answers (`@keyward/metering`), as this command reads it. */
interface Reconciliation {
  period: string;
  lines: readonly ReconcileLine[];
  differences: readonly ReconcileLine[];
}

interface ReconcileLine {
  sink: string;
  ownerId: string;
  meter: string;
  ledger: number;
  sinkTotal: number;
}

interface MeteringApi {
  reconcile(period: string): Promise<Reconciliation>;
}

/**
 * `keyward usage reconcile --period YYYY-MM`: per customer and meter, the ledger's total for the
 * month against what each billing sink holds (Stripe's meter event summaries), the differences
 * printed; exits 4 when any differ.
 */
export async function usageReconcile(context: CommandContext, period: string): Promise<void> {
  const metering = (context.keyward as { metering?: MeteringApi }).metering;
  if (typeof metering?.reconcile !== "function") {
    throw badInput("usage reconcile needs the application to list metering() (@keyward/metering)");
  }
  const report = await metering.reconcile(period);
  if (context.json) printJson(context, report);
  else {
    const rows = report.lines.map((line) => [
      line.sink,
      printable(line.ownerId),
      line.meter,
      String(line.ledger),
      String(line.sinkTotal),
      line.ledger === line.sinkTotal ? "" : String(line.sinkTotal - line.ledger),
    ]);
    context.print(
      rows.length === 0
        ? `no usage in ${period}`
        : formatTable(["SINK", "CUSTOMER", "METER", "LEDGER", "SINK TOTAL", "DIFFERENCE"], rows),
    );
  }
  if (report.differences.length > 0) {
    throw new CliError(
      ExitCode.differs,
      `${report.differences.length} of ${report.lines.length} totals differ in ${period} (usage not yet exported shows here too: see keyward.metering.status() and adjustments())`,
    );
  }
}
