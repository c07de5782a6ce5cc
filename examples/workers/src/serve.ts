/**
 * `pnpm start` in this folder: the Worker in workerd on http://127.0.0.1:8787 (or `PORT`), with
 * `KEYWARD_JWT_SECRET`, `KEYWARD_TIER_LIMITS`, `KEYWARD_TOKEN_SIGNING_KEY` (a private JWK) and
 * `KEYWARD_MCP_RESOURCE` (default `http://127.0.0.1:<port>/mcp`) from the environment as its
 * bindings. Mint a
 * session token with `pnpm --filter @keyward/example-fetch token --sub alice --tier pro` (same
 * development secret). With Node 22 or later, `npx wrangler dev` runs the same Worker from
 * wrangler.toml instead.
 */
import { runInWorkerd } from "./workerd.js";

const bindings: Record<string, string> = {};
for (const name of [
  "KEYWARD_JWT_SECRET",
  "KEYWARD_TIER_LIMITS",
  "KEYWARD_TOKEN_SIGNING_KEY",
  "KEYWARD_MCP_RESOURCE",
]) {
  const value = process.env[name];
  if (value) bindings[name] = value;
}
const port = process.env.PORT ?? "8787";
// `/mcp`'s resource is where this Worker listens, unless the environment names another.
bindings.KEYWARD_MCP_RESOURCE ??= `http://127.0.0.1:${port}/mcp`;
const worker = await runInWorkerd({ bindings, address: `127.0.0.1:${port}`, fromSource: true });
console.log(`Keyward on Cloudflare Workers (workerd): ${worker.origin}`);
const stop = () => {
  worker.stop().finally(() => process.exit(0));
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
