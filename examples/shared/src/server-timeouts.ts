import type { DemoConfig } from "./config.js";

/** The `node:http` server options that cut slow clients off, as every example on Node sets them. */
export interface NodeServerTimeouts {
  /** Milliseconds a client has to send its request headers; then 408 and the connection closes. */
  headersTimeout: number;
  /** Milliseconds a client has to send the whole request, body included; then the same. */
  requestTimeout: number;
  /**
   * How often Node looks for connections past those timeouts. Its default, 30 s, would let a
   * 10-second timeout run to 40; checking every second (more often for shorter timeouts) keeps the
   * cut-off within a second of the configured value, for the price of one walk over open
   * connections a second.
   */
  connectionsCheckingInterval: number;
}

/**
 * Node's defaults keep a client that trickles its body open for 300 s (Fastify switches even that
 * off), which lets a few hundred slow connections hold a server's sockets. These come from
 * `HEADERS_TIMEOUT_MS` and `REQUEST_TIMEOUT_MS` (10 s and 30 s unless set).
 *
 * @example
 * const server = http.createServer(nodeServerTimeouts(config), app);
 */
export function nodeServerTimeouts(
  config: Pick<DemoConfig, "headersTimeoutMs" | "requestTimeoutMs">,
): NodeServerTimeouts {
  return {
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    connectionsCheckingInterval: Math.max(
      10,
      Math.min(1_000, Math.floor(config.headersTimeoutMs / 4)),
    ),
  };
}
