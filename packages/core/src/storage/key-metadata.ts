/** A key's metadata as stored: JSON, read-only. Imports nothing, so events and stores both use it. */

/** A JSON value, as metadata holds it. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [field: string]: JsonValue };

/** Key metadata: a JSON object. */
export type KeyMetadata = { readonly [field: string]: JsonValue };
