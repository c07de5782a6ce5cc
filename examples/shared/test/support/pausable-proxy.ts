/**
 * A TCP proxy in front of a server (Redis) that can be paused: while paused, what clients send is
 * held back rather than forwarded, so every call hangs past its deadline as it does when the server
 * stalls or the network drops packets; on resume the held bytes go through in order, so the clients'
 * connections stay consistent (each reply still answers the command it belongs to).
 */
import { connect, createServer, type Socket } from "node:net";

export interface PausableProxy {
  port: number;
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function pausableProxy(target: {
  host: string;
  port: number;
}): Promise<PausableProxy> {
  let paused = false;
  const links = new Set<{ client: Socket; upstream: Socket; held: Buffer[] }>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const link = { client, upstream, held: [] as Buffer[] };
    links.add(link);
    client.on("data", (chunk: Buffer) => {
      if (paused) link.held.push(chunk);
      else upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    const end = () => {
      links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
      for (const link of links) {
        for (const chunk of link.held.splice(0)) link.upstream.write(chunk);
      }
    },
    close: async () => {
      for (const link of links) {
        link.client.destroy();
        link.upstream.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
