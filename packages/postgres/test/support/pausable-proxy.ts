/**
 * A TCP proxy in front of PostgreSQL that can hang: `pause()` stops forwarding in both directions
 * while every socket stays open, which is what a database looks like to its clients when it is
 * stuck (a full disk, a lock pile-up, a partition that drops packets): connections neither answer
 * nor fail. Nothing gets through while paused, a closed connection's end included. `resume()`
 * forwards again, what was held first, in one write per connection and direction.
 *
 * `pause("to-client")` holds only what the server sends, so the server sees everything and the
 * client nothing; on resume the client then gets all of it at once, in one packet.
 */
import { createConnection, createServer, type Socket } from "node:net";

export type PausedDirection = "both" | "to-client";

export interface PausableProxy {
  /** `targetUrl` with host and port pointing at the proxy. */
  readonly url: string;
  pause(direction?: PausedDirection): void;
  resume(): void;
  /** Destroys every socket and stops listening. */
  close(): Promise<void>;
}

/** One direction of one connection. */
interface Flow {
  to: Socket;
  toClient: boolean;
  held: Buffer[];
  /** The sending side closed while this flow was held: end `to` once the bytes are through. */
  ended: boolean;
}

export async function startPausableProxy(targetUrl: string): Promise<PausableProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  const flows = new Set<Flow>();
  let paused: PausedDirection | undefined;
  const holds = (flow: Flow) => paused === "both" || (paused === "to-client" && flow.toClient);

  const forward = (from: Socket, to: Socket, toClient: boolean) => {
    const flow: Flow = { to, toClient, held: [], ended: false };
    flows.add(flow);
    from.on("data", (chunk: Buffer) => {
      if (holds(flow)) flow.held.push(chunk);
      else to.write(chunk);
    });
    from.on("close", () => {
      if (holds(flow)) {
        flow.ended = true;
        return;
      }
      flows.delete(flow);
      to.end();
    });
    from.on("error", () => {});
  };

  const server = createServer((client) => {
    const upstream = createConnection({
      host: target.hostname,
      port: Number(target.port || 5432),
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    }
    forward(client, upstream, false);
    forward(upstream, client, true);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("The proxy has no port");
  const url = new URL(targetUrl);
  url.hostname = "127.0.0.1";
  url.port = String(address.port);

  return {
    url: url.toString(),
    pause(direction = "both") {
      paused = direction;
    },
    resume() {
      paused = undefined;
      for (const flow of flows) {
        if (flow.held.length > 0) flow.to.write(Buffer.concat(flow.held.splice(0)));
        if (flow.ended) {
          flows.delete(flow);
          flow.to.end();
        }
      }
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
