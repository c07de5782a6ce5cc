/**
 * @keyward/core/toolkit — building blocks for people who write stores and adapters for Keyward:
 * the failure policy a remote store wraps its calls in, and (as they move here from the root)
 * the other parts a store or adapter is assembled from. A host application needs none of this;
 * it imports from `@keyward/core`.
 */
export { codeForStatus, errorBody } from "./errors/error-body.js";
export {
  type CallGuard,
  type CallGuardOptions,
  type CircuitBreakerOptions,
  callGuard,
} from "./faults/call-guard.js";
export { withDeadline } from "./faults/deadline.js";
export {
  StoreUnavailableError,
  type StoreUnavailableKind,
} from "./faults/store-unavailable-error.js";
export { routeWithMethod } from "./usage/route-label.js";
