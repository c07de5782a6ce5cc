import type { Keyward } from "@keyward/core";

/** A Fetch handler that answers only its own routes: `null` means "not mine, try the next one". */
export type KeywardFetchHandler = (request: Request) => Promise<Response | null>;

/**
 * The six key-management endpoints as a Fetch handler that composes with any router: requests
 * under `keyward.basePath` get Keyward's answer (404 and 405 included, as the contract's
 * `{"detail": ...}` bodies); every other request gets `null`, so the host can route it on.
 * Nothing is translated: `keyward.handle` already speaks Fetch (tRPC's `fetchRequestHandler`
 * is the same idea, minus the fall-through).
 *
 * @example
 * const keywardRoutes = keywardFetchHandler(keyward);
 * export default {
 *   async fetch(request: Request) {
 *     return (await keywardRoutes(request)) ?? app.fetch(request);
 *   },
 * };
 */
export function keywardFetchHandler(keyward: Keyward): KeywardFetchHandler {
  return async (request) => {
    if (!keyward.serves(new URL(request.url).pathname)) return null;
    return keyward.handle(request);
  };
}
