/**
 * @keyward/example-demo — what every Keyward example shares: the demo contract
 * (`@keyward/testing/demo-contract`; configuration from the environment, scopes, tiers, the profile routes' answers), the choice of
 * store, demo session tokens, the start-up banner with its curl walkthrough, the timeouts that
 * cut slow clients off on Node, and the key-management page served at `/` in development mode.
 */

export {
  DEMO_SCOPE_DESCRIPTIONS,
  DEMO_TIER_LIMITS,
  DEMO_TIER_NAMES,
  type DemoScope,
  type DemoTier,
  type DemoTierLimits,
  demoTiers,
  PROFILE_ROUTE,
  PROFILE_ROUTES,
  profileResource,
  readProfile,
  updateProfile,
  type Viewer,
} from "@keyward/testing/demo-contract";
export {
  type BannerOptions,
  banner,
  developmentSecretWarning,
  printBanner,
  tokenScript,
  walkthrough,
  walkthroughEnd,
  walkthroughStart,
} from "./banner.js";
export {
  CHUNK_INTERVAL_MS,
  COMPLETION_STREAM_HEADERS,
  COMPLETIONS_PATH,
  COMPLETIONS_ROUTE,
  COMPLETIONS_SCOPE_DESCRIPTIONS,
  COMPLETIONS_SCOPES,
  type CompletionRequest,
  completionChunk,
  completionChunks,
  parseCompletionRequest,
  tokensToReserve,
} from "./completions/completions-contract.js";
export { demoBudgets } from "./completions/demo-budgets.js";
export { writeCompletionStream } from "./completions/node-completion-stream.js";
export {
  type DemoConfig,
  defaultHeadersTimeoutMs,
  defaultRequestTimeoutMs,
  developmentJwtSecret,
  type Environment,
  loadDemoConfig,
  processEnvironment,
} from "./config.js";
export {
  closeOnSignal,
  createDemo,
  type Demo,
  type DemoKeyward,
  type DemoStoreParts,
  demoFeatures,
  demoKeywardOptions,
  exitOnStartupError,
} from "./create-demo.js";
export {
  type DemoMcp,
  demoMcp,
  MCP_METADATA_PATHS,
  MCP_PATH,
} from "./mcp/demo-mcp.js";
export { answerMcp, MCP_SCOPES } from "./mcp/mcp-server.js";
export {
  createDemoMetrics,
  type DemoMetrics,
  METRICS_PATH,
  withDemoMetrics,
} from "./metrics/demo-metrics.js";
export { createDemoPage, type DemoPage } from "./page/demo-page.js";
export { answerDemoPageOnNode } from "./page/node-demo-page.js";
export { withDemoPage } from "./page/with-demo-page.js";
export { type NodeServerTimeouts, nodeServerTimeouts } from "./server-timeouts.js";
export { type DemoStore, openDemoStore } from "./store.js";
export { parseTierLimits } from "./tier-limits.js";
export { type MintTokenOptions, mintToken, runTokenCommand } from "./token.js";
