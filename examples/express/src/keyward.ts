/**
 * This example's Keyward instance, on the stores `DATABASE_URL` / `REDIS_URL` name (in memory when
 * neither is set): what `server.ts` serves, and, as the default export, what the command line acts
 * on when run in this folder, `npx keyward --app src/keyward.ts keys list --owner alice`, so its
 * changes go through the demo's own configuration and stores (docs/cli.md).
 */
import { createDemo } from "@keyward/example-demo";

/** The configuration, instance and storage description, for the server and its banner. */
export const demo = await createDemo();

export default demo.keyward;
