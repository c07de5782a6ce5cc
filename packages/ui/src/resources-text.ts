/** A key's resources as the key list shows them (read-only): one line, kind by kind. */

/** `{ profile: ["alice", "bob"], project: [] }` → `profile alice, bob; project none`. */
export function describeResources(resources: Readonly<Record<string, readonly string[]>>): string {
  return Object.entries(resources)
    .map(([kind, ids]) => `${kind} ${ids.length === 0 ? "none" : ids.join(", ")}`)
    .join("; ");
}
