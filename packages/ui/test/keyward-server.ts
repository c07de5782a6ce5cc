/**
 * A real Keyward server in this test process, configured as the demo is (organizations, key
 * updates, graceful rotation, events, environments, allowlists: `demoKeywardOptions`), serving the
 * demo's page at `/` and its app (the key-management endpoints and the profile routes). In this
 * process, unlike `pnpm start`, so a test can reach the operator's API: `keyward.keys.setLimits`
 * gives a key a quota or credits, which no HTTP call can.
 *
 * The configuration is in `demoConfiguredKeyward` alone: when core's options change shape, that
 * function is the one place to change.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createKeyward, type Keyward, memoryStore } from "@keyward/core";
import type { BudgetsApi } from "@keyward/core/budgets";
import { toFetchRequest } from "@keyward/core/node-http";
import { createApp } from "../../../examples/fetch/src/app.js";
import {
  createDemoPage,
  demoKeywardOptions,
  loadDemoConfig,
  mintToken,
  withDemoPage,
} from "../../../examples/shared/src/index.js";

export interface KeywardServer {
  origin: string;
  /** The demo lists `budgets()`: its API is there. */
  keyward: Keyward & { budgets: BudgetsApi };
  /** A session JWT for `sub`, signed as the demo's "act as" form signs it; `orgs`: memberships. */
  session(options: {
    sub: string;
    tier: "free" | "pro" | "enterprise";
    orgs?: { id: string; role: string; tier: "free" | "pro" | "enterprise" }[];
  }): Promise<string>;
  close(): Promise<void>;
}

/** Keyward as the demo configures it (every v0.2 feature on), on a store in memory. */
export function demoConfiguredKeyward(): {
  keyward: Keyward & { budgets: BudgetsApi };
  config: ReturnType<typeof loadDemoConfig>;
} {
  const config = loadDemoConfig({ PORT: "0" });
  const keyward = createKeyward({ store: memoryStore(), ...demoKeywardOptions(config) });
  return { keyward, config };
}

export async function startKeywardServer(): Promise<KeywardServer> {
  const { keyward, config } = demoConfiguredKeyward();
  const handle = withDemoPage(createDemoPage(config), createApp(keyward));
  const server: Server = createServer((req, res) => {
    void answer(req).then(
      async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      },
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
  async function answer(req: IncomingMessage): Promise<Response> {
    const request = toFetchRequest(req, { origin: "http://127.0.0.1", path: req.url ?? "/" });
    // The fetch example reads the client's address where srvx puts it: the socket's.
    Object.defineProperty(request, "ip", { value: req.socket.remoteAddress });
    return handle(request);
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    keyward,
    session: (options) => mintToken({ ...options, secret: config.jwtSecret, expiresIn: "1h" }),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await keyward.close();
    },
  };
}
