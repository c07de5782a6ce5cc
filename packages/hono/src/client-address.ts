import type { Context } from "hono";
import type { GetConnInfo } from "hono/conninfo";

/** How the client's address is found for a request, or `undefined` when it cannot be. */
export type ClientAddressResolver = (c: Context) => string | null | undefined;

export interface ClientAddressOptions {
  /**
   * Hono's connection-info helper for the runtime the app runs on: `getConnInfo` from
   * `@hono/node-server/conninfo`, `hono/bun`, `hono/deno`, `hono/cloudflare-workers`, … Its
   * `remote.address` is the address unknown keys are limited by (`failedLookups`).
   */
  getConnInfo?: GetConnInfo;
  /**
   * The client's address, your own way (takes precedence over `getConnInfo`). Behind a proxy, the
   * address the proxy reports, never a header a client could set itself.
   */
  clientIp?: ClientAddressResolver;
}

/**
 * One resolver from the options. Without either option there is no address: Keyward then cannot
 * limit forged keys per client, which is why the docs ask for `getConnInfo`.
 */
export function clientAddressResolver(options: ClientAddressOptions): ClientAddressResolver {
  if (options.clientIp) return options.clientIp;
  const getConnInfo = options.getConnInfo;
  if (getConnInfo) return (c) => getConnInfo(c).remote.address;
  return () => undefined;
}
