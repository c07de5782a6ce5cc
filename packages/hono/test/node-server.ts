/** Serves a Hono app on @hono/node-server, on 127.0.0.1 and a free port. */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";

export interface Listening {
  origin: string;
  close(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: any Env: the server only calls app.fetch
export function listen(app: Hono<any>): Promise<Listening> {
  return new Promise((resolve) => {
    const server = serve(
      { fetch: app.fetch, port: 0, hostname: "127.0.0.1" },
      (info: AddressInfo) => {
        resolve({
          origin: `http://127.0.0.1:${info.port}`,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
            }),
        });
      },
    );
  });
}
