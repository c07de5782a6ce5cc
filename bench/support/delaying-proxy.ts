/**
 * A TCP proxy that delays every chunk by `delayMs` in each direction, keeping their order: a store
 * `2 × delayMs` further away, as across a network. What a run then takes is counted in round trips
 * the caller waited for, which a store on the same machine hides under its own work.
 */
import { createConnection, createServer, type Socket } from "node:net";

export interface DelayingProxy {
  /** The port to connect to, on 127.0.0.1. */
  readonly port: number;
  close(): Promise<void>;
}

export async function delayingProxy(target: { host: string; port: number }, delayMs: number) {
  const sockets = new Set<Socket>();
  const forward = (from: Socket, to: Socket) => {
    from.on("data", (chunk) => {
      setTimeout(() => {
        if (!to.destroyed) to.write(chunk);
      }, delayMs);
    });
    from.on("close", () => setTimeout(() => to.destroy(), delayMs));
    from.on("error", () => to.destroy());
  };
  const server = createServer((client) => {
    client.setNoDelay(true);
    const upstream = createConnection(target);
    upstream.setNoDelay(true);
    sockets.add(client).add(upstream);
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return {
    port: address.port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  } satisfies DelayingProxy;
}
