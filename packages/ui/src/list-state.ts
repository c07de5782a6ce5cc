/**
 * What stands where the list goes when there is no list to show: loading, signed out, or a load
 * that failed. Each says only what is true: a failed load never reads as "no keys yet", and the
 * Create button is shown only beside a list that loaded (see `canCreate`).
 */
import { html, type TemplateResult } from "lit";
import type { KeywardMessages } from "./messages.js";

export type ListState =
  | { kind: "loading" }
  /** `text`: `states.signedOut` without a token, or the 401's message. */
  | { kind: "signed-out"; text: string }
  | { kind: "failed"; text: string }
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
        ${state.text}
      </p>`;
    case "failed":
      return html`<div class="errors state" id="state-failed" part="errors">
        <p role="alert">${state.text}</p>
        <button type="button" id="retry" @click=${retry}>${messages.states.tryAgain}</button>
      </div>`;
    case "listed":
      return undefined;
  }
}
