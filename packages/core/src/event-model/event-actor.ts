import type { Principal } from "../auth/principal.js";
import type { EventActor } from "./event.js";

export type { EventActor } from "./event.js";

/** The host's own code, through `keyward.keys.*`. */
export const operatorActor: EventActor = Object.freeze({ type: "operator" });

/** A signed-in user, through the HTTP endpoints. */
export function userActor(caller: Extract<Principal, { kind: "user" }>): EventActor {
  return { type: "user", id: caller.userId };
}

/** Keyward itself: time- and usage-based events. */
export const systemActor: EventActor = Object.freeze({ type: "system" });
/** GitHub's secret scanning, through a signed report to `{basePath}/secret-scanning`. */
export const githubScannerActor: EventActor = Object.freeze({
  type: "secret_scanner",
  id: "github",
});
