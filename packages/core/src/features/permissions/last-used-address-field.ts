import { canonicalClientAddress } from "../../auth/client-address.js";
import type { KeyField } from "../../keys/key-field.js";
import { schemaNode } from "../../validation/schema.js";

/** How the record and the usage report describe the address (for the OpenAPI document). */
const address = schemaNode<string>({ domain: "string" }).describe(
  "The client address (IPv4, or IPv6 in canonical form) of the key's latest use that recorded one (permissions({ lastUsedAddress: true })); present only when there is one",
);

/**
 * `lastUsedAddress`, the key field of `permissions({ lastUsedAddress: true })`: each counted use
 * of a key writes its client address (`canonicalClientAddress` of the `clientIp` `verify` is
 * given), the latest is kept with the key's usage and shown on its record and usage report. Never
 * in a body. A new field per instance: it remembers the last address it read, since a client sends
 * its requests from one address and a run of them is then read once.
 */
export function lastUsedAddressField(): KeyField<string> {
  let given = "";
  let read: string | undefined;
  return {
    name: "lastUsedAddress",
    fromUse: ({ clientIp }) => {
      if (!clientIp) return undefined;
      if (clientIp !== given) {
        given = clientIp;
        read = canonicalClientAddress(clientIp);
      }
      return read;
    },
    schema: { record: address, usage: address },
  };
}
