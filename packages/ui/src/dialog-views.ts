/** The confirmations of rotate and revoke, and the one-time reveal of a secret. */
import { html, type TemplateResult } from "lit";
import type { KeyRecord, KeyWithSecret } from "./types.js";

export interface ConfirmOptions {
  key: KeyRecord;
  busy: boolean;
  confirm(): void;
  cancel(): void;
}

export function confirmRotate(options: ConfirmOptions): TemplateResult {
  return html`<h2 id="dialog-title">Rotate “${options.key.name}”?</h2>
    <p>
      A new secret replaces <code>${options.key.hint}</code>. The current secret stops working
      <strong>at once</strong>: every system using it must switch to the new one.
    </p>
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
