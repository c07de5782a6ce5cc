/**
 * A typed client for the demo, from the generated types alone: `openapi-fetch` checks every path,
 * parameter, body and answer against `src/generated/demo-api.ts` at compile time.
 */
import createClient, { type Client } from "openapi-fetch";
import type { paths } from "../generated/demo-api.js";

export type DemoApiClient = Client<paths>;

/**
 * @example
 * const api = demoApiClient("http://localhost:3000", jwt);
 * const { data } = await api.GET("/api/v1/api-keys");
 */
export function demoApiClient(baseUrl: string, token: string): DemoApiClient {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
}
