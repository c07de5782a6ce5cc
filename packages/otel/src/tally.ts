/**
 * Counts by attribute set, kept in the feature and read by an observable counter when the SDK
 * collects. Counting here costs a few map lookups per verification, where the SDK's own
 * `counter.add` hashes its attributes on every call: this is the hot path.
 */
import type { Attributes, ObservableResult } from "@opentelemetry/api";

interface Cell {
  readonly attributes: Attributes;
  count: number;
}

/** A cumulative count per combination of up to four attribute values. */
export class Tally {
  readonly #cells = new Map<string, Map<string, Map<string, Map<string, Cell>>>>();

  /**
   * @param attributesOf the attribute set of a combination seen for the first time; called once
   *   per combination, never per count
   */
  constructor(
    private readonly attributesOf: (a: string, b: string, c: string, d: string) => Attributes,
  ) {}

  add(a: string, b: string, c: string, d: string): void {
    const byD = level(level(level(this.#cells, a), b), c);
    const cell = byD.get(d);
    if (cell === undefined) byD.set(d, { attributes: this.attributesOf(a, b, c, d), count: 1 });
    else cell.count += 1;
  }

  /** Every combination's count so far, as an observable counter's callback reports it. */
  report(result: ObservableResult): void {
    for (const byB of this.#cells.values()) {
      for (const byC of byB.values()) {
        for (const byD of byC.values()) {
          for (const cell of byD.values()) result.observe(cell.count, cell.attributes);
        }
      }
    }
  }
}

/** The map one level down, made on first use. */
function level<V>(parent: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let child = parent.get(key);
  if (child === undefined) {
    child = new Map();
    parent.set(key, child);
  }
  return child;
}
