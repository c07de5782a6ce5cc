/**
 * The demo app on Bun's own server, for bun.test.ts: started with `bun --conditions=@keyward/source`,
 * it prints `listening <origin>` once it accepts connections and stops on SIGTERM.
 */
import { getConnInfo } from "hono/bun";
import { demoApp, demoKeyward } from "./demo.js";

/** The part of Bun's API used here (bun-types is not a dependency of this package). */
declare const Bun: {
  serve(options: {
    fetch: (request: Request, server: unknown) => Response | Promise<Response>;
    port: number;
    hostname: string;
  }): { port: number; stop(closeActiveConnections?: boolean): Promise<void> };
};

const keyward = demoKeyward();
const app = demoApp(keyward, { getConnInfo });
const server = Bun.serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
console.log(`listening http://127.0.0.1:${server.port}`);
process.once("SIGTERM", async () => {
  await server.stop(true);
  await keyward.close();
  process.exit(0);
});
