/**
 * The demo contract (`@keyward/testing/demo-contract`) on Express: Keyward configured with the demo scopes and tiers, the
 * key-management router, the two profile routes behind `requireApiKey`, and the Node adapter
 * suite's `GET /guarded`. Takes the `express` module so the same app runs on Express 4 and 5.
 */
import type { AddressInfo } from "node:net";
import type { Keyward } from "@keyward/core";
import {
  type DemoKeyward,
  type NodeAdapterHost,
  PROFILE_ROUTE,
  demoKeyward as sharedDemoKeyward,
} from "@keyward/testing";
import { profileResource, readProfile, updateProfile } from "@keyward/testing/demo-contract";
import type express from "express";
import { keywardRouter, requireApiKey } from "../src/index.js";

export type ExpressModule = typeof express;
export type ExpressApp = ReturnType<ExpressModule>;

export const jwtSecret = "express-adapter-test-secret-of-at-least-32-bytes";

/** A Keyward on the demo contract with an in-memory store (see `demoKeyward` of `@keyward/testing`). */
export function demoKeyward(overrides: Parameters<typeof sharedDemoKeyward>[1] = {}): DemoKeyward {
  return sharedDemoKeyward(jwtSecret, overrides);
}

export interface DemoAppOptions extends NodeAdapterHost {
  /** Put `express.json()` in front of everything, the router included. */
  parseJsonFirst?: boolean;
}

/** The demo contract v0.3: the profile routes are about the profile their slug names. */
const resource = (req: { params: Record<string, unknown> }) =>
  profileResource(String(req.params.slug));

export function demoApp(
  expressModule: ExpressModule,
  keyward: Keyward,
  options: DemoAppOptions = {},
): ExpressApp {
  const app = expressModule();
  if (options.trustLoopbackProxy) app.set("trust proxy", "loopback");
  if (options.parseJsonFirst) app.use(expressModule.json());
  app.use(options.prefix ?? "/", keywardRouter(keyward));
  app.get(
    PROFILE_ROUTE,
    requireApiKey(keyward, { scopes: ["profile:read"], resource }),
    (req, res) => {
      res.json(readProfile(String(req.params.slug), req.keyward!.principal));
    },
  );
  app.put(
    PROFILE_ROUTE,
    requireApiKey(keyward, { scopes: ["profile:write"], resource }),
    expressModule.json(),
    (req, res) => {
      res.json(updateProfile(String(req.params.slug), req.keyward!.principal));
    },
  );
  app.get("/guarded", requireApiKey(keyward, options.guard), (req, res) => {
    options.onGuarded?.();
    res.json({ kind: req.keyward!.principal.kind, userId: req.keyward!.principal.userId });
  });
  return app;
}

export interface Listening {
  origin: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 on a free port. */
export function listen(app: ExpressApp): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, "127.0.0.1");
    server.once("error", reject);
    server.once("listening", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
