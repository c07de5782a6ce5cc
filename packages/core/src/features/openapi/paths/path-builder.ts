export type { PathBuilder } from "../../../feature-interface/openapi-contribution.js";

/** Key management takes the user's session token only. */
export const sessionOnly = [{ userJwt: [] }];

export const keyIdParameter = { $ref: "#/components/parameters/KeyId" };
export const ifMatchParameter = { $ref: "#/components/parameters/IfMatch" };
