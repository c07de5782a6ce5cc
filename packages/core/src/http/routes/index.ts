import type { EndpointName } from "../router.js";
import { createKey } from "./create-key.js";
import { keyEvents } from "./key-events.js";
import { keyUsage } from "./key-usage.js";
import { listKeys } from "./list-keys.js";
import { listScopes } from "./list-scopes.js";
import { revokeKey } from "./revoke-key.js";
import { rotateKey } from "./rotate-key.js";
import type { EndpointHandler } from "./route-context.js";
import { updateKey } from "./update-key.js";

export const endpoints: Record<EndpointName, EndpointHandler> = {
  list: listKeys,
  create: createKey,
  scopes: listScopes,
  rotate: rotateKey,
  usage: keyUsage,
  revoke: revokeKey,
  update: updateKey,
  events: keyEvents,
};
