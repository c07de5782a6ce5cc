/**
 * What stands where the list goes when there is no list to show: loading, signed out, or a load
 * that failed. Each says only what is true: a failed load never reads as "no keys yet", and the
 * Create button is shown only beside a list that loaded (see `canCreate`).
 */
import { html, type TemplateResult } from "lit";
import type { Failure } from "./failure.js";
import type { KeywardMessages } from "./messages.js";

export type ListState =
  | { kind: "loading" }
  | { kind: "signed-out"; failure: Failure }
  | { kind: "failed"; failure: Failure }
  | { kind: "empty" }
  | { kind: "listed" };

/** Creating a key makes sense only where the list loaded: an error or a sign-in comes first. */
export function canCreate(state: ListState): boolean {
  return state.kind === "empty" || state.kind === "listed";
}

/** The state's own view; nothing for a list that loaded with keys (the table shows them). */
export function listStateView(
  state: ListState,
  messages: KeywardMessages,
  retry: () => void,
): TemplateResult | undefined {
  switch (state.kind) {
    case "loading":
      return html`<p class="muted state" id="state-loading">${messages.states.loading}</p>`;
    case "empty":
      return html`<p class="muted state" id="state-empty">${messages.states.empty}</p>`;
    case "signed-out":
      return html`<p class="state signed-out" id="state-signed-out" role="status">
        ${state.failure.text}
      </p>`;
    case "failed":
      return html`<div class="errors state" id="state-failed" part="errors">
        <p role="alert">${state.failure.text}</p>
        <button type="button" id="retry" @click=${retry}>${messages.states.tryAgain}</button>
      </div>`;
    case "listed":
      return undefined;
  }
}
