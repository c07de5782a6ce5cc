/** `pnpm token --sub alice --tier pro`: prints a session JWT for this example's server. */
import { runTokenCommand } from "@keyward/example-demo";

await runTokenCommand(process.argv.slice(2));
