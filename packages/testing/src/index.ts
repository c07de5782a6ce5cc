/**
 * @keyward/testing — conformance suites for Keyward storage implementations and HTTP adapters.
 * Import it from your vitest test files.
 */

export { collectStrings, fakeHash, storedKey, uniqueId } from "./storage/fixtures.js";
export {
  describeStorageConformance,
  type StorageProbe,
  type StorageSuiteOptions,
} from "./storage/index.js";
