/**
 * The Worker the tests run in workerd: it exports the Durable Object classes (the store's and the
 * tests' schedule, `test-schedule.ts`), and answers `POST /verify` and `POST /keys` with a Keyward
 * on `cloudflareStore` (`app.ts`), so that several Worker services (separate isolates) can be set
 * on one namespace.
 */
export { KeywardObject } from "../../src/index.js";
export { default } from "./test-app.js";
export { KeywardSchedule } from "./test-schedule.js";
