/**
 * The create form: a name, the scopes (one checkbox each, from `GET {basePath}/scopes`), the tier
 * (from the `tiers` the host configured) and an optional expiry date.
 */
import { html, type TemplateResult } from "lit";
import type { CreateKeyInput } from "./keys-client.js";
import type { ScopeDescription } from "./types.js";

export interface CreateFormOptions {
  scopes: ScopeDescription[];
  tiers: string[];
  busy: boolean;
  submit(input: CreateKeyInput): void;
  cancel(): void;
}

export function createForm(options: CreateFormOptions): TemplateResult {
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    options.submit(readForm(event.currentTarget as HTMLFormElement));
  };
  return html`<form @submit=${onSubmit} novalidate>
    <h2 id="dialog-title">Create an API key</h2>
    <div class="field">
      <label for="key-name">Name</label>
      <input id="key-name" name="name" type="text" maxlength="100" autocomplete="off" required
        autofocus aria-describedby="key-name-hint" />
      <span id="key-name-hint" class="hint-text">What the key is for, e.g. "CI deploys".</span>
    </div>
    <fieldset>
      <legend>Scopes</legend>
      ${options.scopes.map(
        (scope) => html`<label class="checkbox">
          <input type="checkbox" name="scopes" value=${scope.name} />
          <span><code>${scope.name}</code> <span class="hint-text">${scope.description}</span></span>
        </label>`,
      )}
    </fieldset>
    <div class="field">
      <label for="key-tier">Tier</label>
      <select id="key-tier" name="tier">
        ${options.tiers.map((tier) => html`<option value=${tier}>${tier}</option>`)}
      </select>
    </div>
    <div class="field">
      <label for="key-expires">Expires <span class="hint-text">(optional, end of the day UTC)</span></label>
      <input id="key-expires" name="expiresOn" type="date" />
    </div>
    <div class="buttons">
      <button type="button" @click=${options.cancel}>Cancel</button>
      <button type="submit" class="primary" ?disabled=${options.busy}>Create key</button>
    </div>
  </form>`;
}

function readForm(form: HTMLFormElement): CreateKeyInput {
  const data = new FormData(form);
  const input: CreateKeyInput = {
    name: String(data.get("name") ?? ""),
    scopes: data.getAll("scopes").map(String),
    tier: String(data.get("tier") ?? ""),
  };
  const expiresOn = String(data.get("expiresOn") ?? "");
  if (expiresOn) input.expiresAt = `${expiresOn}T23:59:59Z`;
  return input;
}
