import type { InternalKeysApi } from "../../api/keys-api.js";
import type { Principal } from "../../auth/principal.js";
import type { KeywardContext } from "../../keyward/context.js";

/** What every endpoint handler receives: the caller (always a user), and where to send work. */
export interface EndpointRequest {
  request: Request;
  user: Extract<Principal, { kind: "user" }>;
  keyId: string;
  keys: InternalKeysApi;
  bodyLimit: number;
  /** Rate-limit headers for the response. */
  headers: Record<string, string>;
}

/** What the kernel's own endpoints receive: the request, and the instance's context. */
export interface RouteContext extends EndpointRequest {
  context: KeywardContext;
}

export type EndpointHandler = (route: RouteContext) => Promise<Response>;

/**
 * A feature's endpoint on a key: the request without the kernel's context (what else it needs,
 * it takes from the `FeatureKernel` it was installed with).
 */
export type FeatureEndpointHandler = (route: EndpointRequest) => Promise<Response>;
