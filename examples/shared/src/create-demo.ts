import { createKeyward, type Keyward, type KeywardConfig } from "@keyward/core";
import { type DemoConfig, type Environment, loadDemoConfig, processEnvironment } from "./config.js";
import { demoOpenApiRoutes, demoScopes, demoTiers } from "./contract.js";
import { openDemoStore } from "./store.js";

export interface Demo {
  config: DemoConfig;
  keyward: Keyward;
  /** Which backend holds what, for the banner. */
  storage: string;
}

/**
 * Reads the environment, opens the store (migrating PostgreSQL when `DATABASE_URL` is set) and
 * creates the Keyward instance every example serves.
 *
 * @example
 * const { config, keyward, storage } = await createDemo();
 * app.use(keywardRouter(keyward));
 */
export async function createDemo(env: Environment = processEnvironment()): Promise<Demo> {
  const config = loadDemoConfig(env);
  const store = await openDemoStore(config);
  const keyward = createKeyward({ store: store.storage, ...demoKeywardOptions(config) });
  return { config, keyward, storage: store.description };
}

/**
 * Everything the demo configures Keyward with, but the store. v0.2 (DESIGN.md, "Demo contract,
 * v0.2"): the OpenAPI document is served at `/api/v1/api-keys/openapi.json`.
 */
export function demoKeywardOptions(config: DemoConfig): Omit<KeywardConfig, "store"> {
  return {
    scopes: demoScopes,
    tiers: demoTiers(config.tierLimits),
    jwt: { secret: config.jwtSecret },
    openapi: {
      serve: true,
      info: { title: "Keyward demo", version: "0.2.0" },
      routes: demoOpenApiRoutes,
    },
    // 500s answer without internals; this is where their causes go.
    onError: (error) => console.error("keyward:", error),
  };
}

/**
 * Runs `close` once on SIGINT or SIGTERM, then exits: Node, Bun and Deno all deliver these through
 * `process.on`.
 */
export function closeOnSignal(close: () => Promise<void>): void {
  const proc = (globalThis as { process?: NodeJS.Process }).process;
  if (!proc) return;
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    close()
      .catch((error) => console.error("error while closing:", error))
      .finally(() => proc.exit(0));
  };
  proc.once("SIGINT", stop);
  proc.once("SIGTERM", stop);
}

/** Prints a start-up failure as one readable line (a bad variable, an unreachable database). */
export function exitOnStartupError(error: unknown): never {
  console.error(`Could not start the demo: ${error instanceof Error ? error.message : error}`);
  const proc = (globalThis as { process?: NodeJS.Process }).process;
  proc?.exit(1);
  throw error;
}
