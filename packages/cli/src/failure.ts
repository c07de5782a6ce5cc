/**
 * A store failure in one line for an operator: the innermost cause's message (Keyward wraps store
 * errors in a 500 whose own message reveals nothing), with a hint where one helps. Driver messages
 * name no secret: PostgreSQL's message omits the row (that is in its `detail`, never printed).
 */

export function describeFailure(error: unknown): string {
  const innermost = rootCause(error);
  if (pgCode(innermost) === "42P01") {
    return `${messageOf(innermost)} (the schema is not migrated: run \`keyward migrate\`)`;
  }
  const code = (innermost as { code?: unknown }).code;
  const message = messageOf(innermost);
  return typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
}

function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 10; depth++) {
    const next = (current as { cause?: unknown } | null)?.cause;
    if (next === undefined || next === null) break;
    current = next;
  }
  // Node's connection errors to "localhost" come as an AggregateError of one per address.
  if (current instanceof AggregateError && current.errors.length > 0) return current.errors[0];
  return current;
}

function pgCode(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

function messageOf(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  return String(error);
}
