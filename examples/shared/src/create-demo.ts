import { createKeyward, type Keyward } from "@keyward/core";
import { type DemoConfig, type Environment, loadDemoConfig, processEnvironment } from "./config.js";
import { demoScopes, demoTiers } from "./contract.js";
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
  const keyward = createKeyward({
    store: store.storage,
    scopes: demoScopes,
    tiers: demoTiers(config.tierLimits, { ownerLimits: config.ownerLimits, quotas: config.quotas }),
    jwt: { secret: config.jwtSecret },
    // 500s answer without internals; this is where their causes go.
    onError: (error) => console.error("keyward:", error),
  });
  return { config, keyward, storage: store.description };
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
