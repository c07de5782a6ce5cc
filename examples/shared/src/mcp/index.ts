/**
 * `@keyward/example-demo/mcp`: the demo's `/mcp` without the rest of the demo (its stores, its
 * Node servers), for a runtime that bundles only what it imports: the Workers example.
 */
export { type DemoMcp, demoMcp, MCP_METADATA_PATHS, MCP_PATH } from "./demo-mcp.js";
export { answerMcp, MCP_SCOPES, type McpServerOptions } from "./mcp-server.js";
