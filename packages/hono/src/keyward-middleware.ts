import type { Keyward } from "@keyward/core";
import type { Context, MiddlewareHandler } from "hono";
import { type ClientAddressOptions, clientAddressResolver } from "./client-address.js";
import { mountKeyward } from "./mounted-keyward.js";
import type { KeywardEnv } from "./types.js";

export type KeywardMiddlewareOptions = ClientAddressOptions;

/**
 * Keyward in a Hono app: requests under `keyward.basePath` get the six key-management endpoints
 * (404 and 405 included, as the contract's `{"detail": ...}` bodies) and go no further; every other
 * request goes on, with the instance made available to `requireScopes` and `requireApiKey` further
 * down. Register it before any middleware that reads request bodies.
 *
 * @example
 * import { getConnInfo } from "@hono/node-server/conninfo"; // or hono/bun, hono/deno, …
 * import { keyward, requireScopes } from "@keyward/hono";
 *
 * const app = new Hono();
 * app.use(keyward(keywardInstance, { getConnInfo }));
 * app.get("/api/v1/profiles/:slug", requireScopes("profile:read"), (c) =>
 *   c.json({ slug: c.req.param("slug"), viewer: c.get("keyward").principal.userId }),
 * );
 */
export function keyward(
  instance: Keyward,
  options: KeywardMiddlewareOptions = {},
): MiddlewareHandler<KeywardEnv> {
  const clientIp = clientAddressResolver(options);
  return async (c, next) => {
    if (instance.serves(c.req.path)) return instance.handle(await unreadRequest(c));
    mountKeyward(c, { keyward: instance, clientIp });
    await next();
  };
}

/**
 * The request as it arrived. When middleware registered earlier already read the body
 * (`c.req.json()`), the stream is spent, but Hono keeps what it read: that is handed on instead, so
 * Keyward still sees the body (and applies its own size limit to it).
 */
async function unreadRequest(c: Context): Promise<Request> {
  const raw = c.req.raw;
  if (!raw.bodyUsed) return raw;
  return new Request(raw.url, {
    method: raw.method,
    headers: raw.headers,
    body: await c.req.arrayBuffer(),
  });
}
