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
  demoFeatures,
  demoKeywardOptions,
  exitOnStartupError,
} from "./create-demo.js";
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
