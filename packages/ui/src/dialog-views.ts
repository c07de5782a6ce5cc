/** The confirmations of rotate and revoke, and the one-time reveal of a secret. */
import { html, nothing, type TemplateResult } from "lit";
import { formatDateTime, formatDuration } from "./format.js";
import type { KeyRecord, KeyWithSecret } from "./types.js";

export interface ConfirmOptions {
  key: KeyRecord;
  busy: boolean;
  confirm(): void;
  cancel(): void;
}

export interface ConfirmRotateOptions extends ConfirmOptions {
  /** The grace periods offered, in seconds (`grace-periods`); none: the choice is not shown. */
  gracePeriods: readonly number[];
  /** The grace chosen, in seconds; 0 for none. */
  grace: number;
  chooseGrace(seconds: number): void;
}

export function confirmRotate(options: ConfirmRotateOptions): TemplateResult {
  const { grace } = options;
  return html`<h2 id="dialog-title">Rotate “${options.key.name}”?</h2>
    <p id="rotate-effect">
      A new secret replaces <code>${options.key.hint}</code>.
      ${
        grace > 0
          ? html`The current secret keeps working for <strong>${formatDuration(grace)}</strong>,
              then stops: switch every system using it to the new one before then.`
          : html`The current secret stops working <strong>at once</strong>: every system using it
              must switch to the new one.`
      }
    </p>
    ${
      options.gracePeriods.length === 0
        ? nothing
        : html`<div class="field">
            <label for="grace">Keep the current secret working</label>
            <select id="grace" aria-describedby="rotate-effect"
              @change=${(event: Event) =>
                options.chooseGrace(Number((event.currentTarget as HTMLSelectElement).value))}>
              <option value="0" ?selected=${grace === 0}>No, stop it at once</option>
              ${options.gracePeriods.map(
                (seconds) =>
                  html`<option value=${seconds} ?selected=${grace === seconds}>
                    For ${formatDuration(seconds)}
                  </option>`,
              )}
            </select>
          </div>`
    }
    <div class="buttons">
      <button type="button" autofocus @click=${options.cancel}>Cancel</button>
      <button type="button" class="primary" ?disabled=${options.busy} @click=${options.confirm}>
        Rotate key
      </button>
    </div>`;
}

export function confirmRevoke(options: ConfirmOptions): TemplateResult {
  return html`<h2 id="dialog-title">Revoke “${options.key.name}”?</h2>
    <p>
      Requests with <code>${options.key.hint}</code> will be refused from now on.
      <strong>This cannot be undone.</strong>
    </p>
    <div class="buttons">
      <button type="button" autofocus @click=${options.cancel}>Cancel</button>
      <button type="button" class="danger" ?disabled=${options.busy} @click=${options.confirm}>
        Revoke key
      </button>
    </div>`;
}

export interface RevealOptions {
  key: KeyWithSecret;
  action: "created" | "rotated";
  /** The locale the old secret's deadline is shown in. */
  locale?: string | undefined;
  copied: boolean;
  copy(): void;
  done(): void;
}

export function reveal(options: RevealOptions): TemplateResult {
  const title = options.action === "created" ? "Your new API key" : "The new secret";
  return html`<h2 id="dialog-title">${title}: “${options.key.name}”</h2>
    <p class="warning" id="reveal-warning">
      <strong>Copy it now: you will not see this key again.</strong> Store it somewhere safe, such
      as a secret manager. If you lose it, rotate the key to get a new one.
    </p>
    ${
      options.key.previousSecretExpiresAt
        ? html`<p id="grace-note">
            The old secret keeps working until
            <strong>${formatDateTime(options.key.previousSecretExpiresAt, options.locale)}</strong>.
          </p>`
        : nothing
    }
    <div class="field">
      <label for="secret">Secret key</label>
      <div class="secret">
        <input id="secret" type="text" readonly .value=${options.key.key}
          aria-describedby="reveal-warning" @focus=${selectAll} />
        <button type="button" class="primary" id="copy" @click=${options.copy}>
          ${options.copied ? "Copied" : "Copy"}
        </button>
      </div>
    </div>
    <div class="buttons">
      <button type="button" id="done" @click=${options.done}>Done, I have copied it</button>
    </div>`;
}

function selectAll(event: FocusEvent): void {
  (event.currentTarget as HTMLInputElement).select();
}
