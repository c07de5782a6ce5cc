export { KeywardObject } from "./object/keyward-object.js";
export type { ObjectNamespace, ObjectResponse, ObjectStub } from "./protocol/object-call.js";
export { ObjectCallError } from "./protocol/object-call.js";
export {
  type BackgroundRun,
  runBackgroundWork,
  type TaskOutcome,
} from "./schedule/background-work.js";
export {
  type KeywardScheduleOptions,
  keywardSchedule,
  readKeywardSchedule,
  type ScheduleObjectClass,
  type ScheduleState,
  startKeywardSchedule,
} from "./schedule/schedule-object.js";
export {
  type CloudflareStore,
  type CloudflareStoreOptions,
  cloudflareStore,
} from "./store/cloudflare-store.js";
