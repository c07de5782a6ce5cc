/**
 * The create form: a name, the scopes (one checkbox each, from `GET {basePath}/scopes`), the tier
 * (from the `tiers` the host configured) and an optional expiry date.
 */
import { html, nothing, type TemplateResult } from "lit";
import type { CreateFormField } from "./field-issues.js";
import type { CreateKeyInput } from "./keys-client.js";
import type { ScopeDescription } from "./types.js";

export interface CreateFormOptions {
  scopes: ScopeDescription[];
  tiers: string[];
  busy: boolean;
  /** A 422's message for each field it named, shown beside that field. */
  fieldErrors: Partial<Record<CreateFormField, string>>;
  submit(input: CreateKeyInput): void;
  cancel(): void;
}

export function createForm(options: CreateFormOptions): TemplateResult {
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    options.submit(readForm(event.currentTarget as HTMLFormElement));
  };
  const errors = options.fieldErrors;
  return html`<form @submit=${onSubmit} novalidate>
    <h2 id="dialog-title">Create an API key</h2>
    <div class="field">
      <label for="key-name">Name</label>
      <input id="key-name" name="name" type="text" maxlength="100" autocomplete="off" required
        autofocus aria-invalid=${errors.name ? "true" : "false"}
        aria-describedby=${describedBy("key-name-hint", "key-name-error", errors.name)} />
      <span id="key-name-hint" class="hint-text">What the key is for, e.g. "CI deploys".</span>
      ${fieldError("key-name-error", errors.name)}
    </div>
    <fieldset id="key-scopes" aria-describedby=${describedBy("", "key-scopes-error", errors.scopes) || nothing}
      class=${errors.scopes ? "invalid" : ""}>
      <legend>Scopes</legend>
      ${fieldError("key-scopes-error", errors.scopes)}
      ${options.scopes.map(
        (scope) => html`<label class="checkbox">
          <input type="checkbox" name="scopes" value=${scope.name} />
          <span><code>${scope.name}</code> <span class="hint-text">${scope.description}</span></span>
        </label>`,
      )}
    </fieldset>
    <div class="field">
      <label for="key-tier">Tier</label>
      <select id="key-tier" name="tier" aria-invalid=${errors.tier ? "true" : "false"}
        aria-describedby=${describedBy("", "key-tier-error", errors.tier) || nothing}>
        ${options.tiers.map((tier) => html`<option value=${tier}>${tier}</option>`)}
      </select>
      ${fieldError("key-tier-error", errors.tier)}
    </div>
    <div class="field">
      <label for="key-expires">Expires <span class="hint-text">(optional, end of the day UTC)</span></label>
      <input id="key-expires" name="expiresOn" type="date"
        aria-invalid=${errors.expiresAt ? "true" : "false"}
        aria-describedby=${describedBy("", "key-expires-error", errors.expiresAt) || nothing} />
      ${fieldError("key-expires-error", errors.expiresAt)}
    </div>
    <div class="buttons">
      <button type="button" @click=${options.cancel}>Cancel</button>
      <button type="submit" class="primary" ?disabled=${options.busy}>Create key</button>
    </div>
  </form>`;
}

/** The ids a control's `aria-describedby` lists: its hint, and its error while it has one. */
function describedBy(hintId: string, errorId: string, error: string | undefined): string {
  return [hintId, error ? errorId : ""].filter(Boolean).join(" ");
}

function fieldError(id: string, error: string | undefined): TemplateResult | typeof nothing {
  return error ? html`<span id=${id} class="field-error">${error}</span>` : nothing;
}

/** The control of each field, in the form's order: focus goes to the first one with an error. */
export const fieldControls: [CreateFormField, string][] = [
  ["name", "#key-name"],
  ["scopes", "#key-scopes input"],
  ["tier", "#key-tier"],
  ["expiresAt", "#key-expires"],
];

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
