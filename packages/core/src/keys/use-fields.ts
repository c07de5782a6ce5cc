/**
 * The fields a key's uses write (`KeyField.fromUse`), as they travel with its usage: one text per
 * use, the JSON object of the values that use wrote, which the usage store keeps for the key's
 * latest use that wrote any (`UsageIncrement.useFields`) without reading it. The text is ASCII
 * (every other character escaped), so that the stores' tie-break of two uses at the same
 * millisecond, the greater text, is the same whether they compare UTF-16 code units (JavaScript),
 * bytes (PostgreSQL's "C" collation, Lua) or code points.
 */
import type { JsonValue } from "../storage/key-metadata.js";
import type { KeyField, UseRequest } from "./key-field.js";

/** The use fields' values by name, as a record or a usage report shows them. */
export type UseFieldValues = Record<string, JsonValue>;

/**
 * The text a use of a key records for `fields`' values from `request`, or undefined when it
 * writes none; undefined when no listed feature declares such a field (nothing to ask per use).
 *
 * @example
 * const encode = useFieldsEncoder(ctx.keyFields);
 * encode?.({ clientIp: "192.0.2.1" }); // '{"lastUsedAddress":"192.0.2.1"}' with permissions({ lastUsedAddress: true })
 */
export function useFieldsEncoder(
  fields: readonly KeyField[],
): ((request: UseRequest) => string | undefined) | undefined {
  const written = fields.filter((field) => field.fromUse !== undefined);
  if (written.length === 0) return undefined;
  if (written.length === 1) {
    const [{ name, fromUse }] = written as [KeyField & Required<Pick<KeyField, "fromUse">>];
    // A client sends its requests with the same data, so its value repeats: encoded once a run.
    let value: JsonValue | undefined;
    let text = "";
    return (request) => {
      const next = fromUse(request);
      if (next === undefined) return undefined;
      if (next !== value) {
        value = next;
        text = encodeUseFields({ [name]: next });
      }
      return text;
    };
  }
  return (request) => {
    const values: UseFieldValues = {};
    let any = false;
    for (const field of written) {
      const value = field.fromUse!(request);
      if (value === undefined) continue;
      values[field.name] = value;
      any = true;
    }
    return any ? encodeUseFields(values) : undefined;
  };
}

/** `values` as a use records them: JSON, every character past ASCII escaped. */
export function encodeUseFields(values: UseFieldValues): string {
  return JSON.stringify(values).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** The values a stored use-fields text holds; undefined for none, or for a text not an object. */
export function decodeUseFields(text: string | undefined): UseFieldValues | undefined {
  if (text === undefined) return undefined;
  try {
    const values: unknown = JSON.parse(text);
    return typeof values === "object" && values !== null && !Array.isArray(values)
      ? (values as UseFieldValues)
      : undefined;
  } catch {
    return undefined;
  }
}
