import type { OpenApiBuildContext } from "../build-context.js";
import type { HttpMethod, OperationObject } from "../document-types.js";

/**
 * One endpoint's part of the document. Endpoints under the base path give `path` relative to it
 * (`""`, `"/{key_id}/rotate"`); a feature that adds an endpoint (organizations, PATCH, events…)
 * adds a builder to the registry with `enabled` saying when its configuration turns it on.
 */
export interface PathBuilder {
  path: string;
  method: HttpMethod;
  /** Whether this deployment serves the endpoint; default always. */
  enabled?(context: OpenApiBuildContext): boolean;
  build(context: OpenApiBuildContext): OperationObject;
}

/** Key management takes the user's session token only. */
export const sessionOnly = [{ userJwt: [] }];

export const keyIdParameter = { $ref: "#/components/parameters/KeyId" };
export const ifMatchParameter = { $ref: "#/components/parameters/IfMatch" };
