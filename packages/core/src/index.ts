/**
 * @keyward/core — API keys for any TypeScript server: key format and hashing, scopes and tiers,
 * errors, validation, JWT, rate limits, usage, storage interfaces, the in-memory store, and the
 * framework-neutral HTTP handler.
 */
export { type Clock, type ManualClock, manualClock, systemClock } from "./clock.js";
export { type KeywardErrorCode, errorStatus } from "./errors/codes.js";
export { type ErrorDetail, internalError, isKeywardError, KeywardError } from "./errors/keyward-error.js";
export type { ValidationIssue } from "./errors/validation-issue.js";
export { cryptoRandom, type RandomSource } from "./random.js";
export type * from "./rate-limit/types.js";
export type * from "./storage/index.js";
