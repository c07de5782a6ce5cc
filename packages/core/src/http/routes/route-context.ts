import type { InternalKeysApi } from "../../api/keys-api.js";
import type { Principal } from "../../auth/principal.js";
import type { KeywardContext } from "../../keyward/context.js";

/** What every endpoint handler receives: the caller (always a user), and where to send work. */
export interface RouteContext {
  request: Request;
  user: Extract<Principal, { kind: "user" }>;
  keyId: string;
  keys: InternalKeysApi;
  context: KeywardContext;
  bodyLimit: number;
  /** Rate-limit headers for the response. */
  headers: Record<string, string>;
}

export type EndpointHandler = (route: RouteContext) => Promise<Response>;
