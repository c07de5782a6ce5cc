/**
 * The bytes a body parser read, kept for Keyward. A parser that runs before `keywardRouter`
 * (`app.use(express.json())` first) consumes the body; the router can only serialise the parsed
 * value again, which is enough for key management but not for what is signed over the exact
 * bytes: GitHub's secret-scanning reports (`secretScanning`). Pass `keepRawBody` as the parser's
 * `verify` option and the router hands Keyward the bytes as they arrived instead.
 */
import type { IncomingMessage } from "node:http";

const rawBodies = new WeakMap<IncomingMessage, Uint8Array>();

/**
 * A body-parser `verify` hook that keeps the raw body for Keyward. Only needed when a body parser
 * runs before `keywardRouter`; mounting the router first needs nothing.
 * @example
 * app.use(express.json({ verify: keepRawBody }));
 * app.use(keywardRouter(keyward));
 */
export function keepRawBody(req: IncomingMessage, _res: unknown, buffer: Uint8Array): void {
  rawBodies.set(req, new Uint8Array(buffer));
}

/** The body as `keepRawBody` kept it, if it ran for this request. */
export function keptRawBody(req: IncomingMessage): Uint8Array | undefined {
  return rawBodies.get(req);
}
