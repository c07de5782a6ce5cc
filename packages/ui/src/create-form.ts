/**
 * The create form: a name, the scopes (one checkbox each, from `GET {basePath}/scopes`), the tier
 * (those the account may grant), the environment (when the server has several), an optional
 * expiry date and an optional IP allowlist.
 */
import { html, nothing, type TemplateResult } from "lit";
import type { CreateFormField } from "./field-issues.js";
import type { CreateKeyInput } from "./keys-client.js";
import { fill, type KeywardMessages } from "./messages.js";
import type { ScopeDescription } from "./types.js";

export interface CreateFormOptions {
  scopes: ScopeDescription[];
  /** The tiers offered: those at or below the account's (or the organization's) tier. */
  tiers: string[];
  /** The environments, the default first; a choice is shown only when there are several. */
  environments: string[];
  /** The organization the key is created for; undefined: the person's own. */
  organizationId: string | undefined;
  /** What the heading names the organization by. */
  organizationName: string | undefined;
  labels: KeywardMessages["labels"];
  busy: boolean;
  /** A 422's message for each field it named, shown beside that field. */
  fieldErrors: Partial<Record<CreateFormField, string>>;
  submit(input: CreateKeyInput): void;
  cancel(): void;
}

export function createForm(options: CreateFormOptions): TemplateResult {
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    const input = readForm(event.currentTarget as HTMLFormElement);
    if (options.organizationId !== undefined) input.organizationId = options.organizationId;
    options.submit(input);
  };
  const errors = options.fieldErrors;
  const { labels } = options;
  return html`<form @submit=${onSubmit} novalidate>
    <h2 id="dialog-title">
      ${
        options.organizationName === undefined
          ? "Create an API key"
          : fill(labels.createForOrganization, { organization: options.organizationName })
      }
    </h2>
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
    ${
      options.environments.length > 1
        ? html`<div class="field">
            <label for="key-environment">${labels.environment}</label>
            <select id="key-environment" name="environment"
              aria-invalid=${errors.environment ? "true" : "false"}
              aria-describedby=${describedBy("", "key-environment-error", errors.environment) || nothing}>
              ${options.environments.map(
                (environment, index) =>
                  html`<option value=${index === 0 ? "" : environment}>
                    ${index === 0 ? fill(labels.defaultEnvironment, { environment }) : environment}
                  </option>`,
              )}
            </select>
            ${fieldError("key-environment-error", errors.environment)}
          </div>`
        : nothing
    }
    <div class="field">
      <label for="key-expires">Expires <span class="hint-text">(optional, end of the day UTC)</span></label>
      <input id="key-expires" name="expiresOn" type="date"
        aria-invalid=${errors.expiresAt ? "true" : "false"}
        aria-describedby=${describedBy("", "key-expires-error", errors.expiresAt) || nothing} />
      ${fieldError("key-expires-error", errors.expiresAt)}
    </div>
    ${allowedIpsField("key-allowed-ips", labels, errors.allowedIps, "")}
    <div class="buttons">
      <button type="button" @click=${options.cancel}>Cancel</button>
      <button type="submit" class="primary" ?disabled=${options.busy}>Create key</button>
    </div>
  </form>`;
}

/** The allowlist: one address or range per line (commas and spaces separate them too). */
export function allowedIpsField(
  id: string,
  labels: KeywardMessages["labels"],
  error: string | undefined,
  value: string,
): TemplateResult {
  return html`<div class="field">
    <label for=${id}>${labels.allowedIps}</label>
    <textarea id=${id} name="allowedIps" rows="2" autocomplete="off" spellcheck="false"
      .value=${value} aria-invalid=${error ? "true" : "false"}
      aria-describedby=${describedBy(`${id}-hint`, `${id}-error`, error)}></textarea>
    <span id=${`${id}-hint`} class="hint-text">${labels.allowedIpsHint}</span>
    ${fieldError(`${id}-error`, error)}
  </div>`;
}

/** The addresses of the allowlist field, in the order written. */
export function readAllowedIps(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);
}

/** The ids a control's `aria-describedby` lists: its hint, and its error while it has one. */
export function describedBy(hintId: string, errorId: string, error: string | undefined): string {
  return [hintId, error ? errorId : ""].filter(Boolean).join(" ");
}

export function fieldError(id: string, error: string | undefined): TemplateResult | typeof nothing {
  return error ? html`<span id=${id} class="field-error">${error}</span>` : nothing;
}

/** The control of each field, in the form's order: focus goes to the first one with an error. */
export const fieldControls: [CreateFormField, string][] = [
  ["name", "#key-name"],
  ["scopes", "#key-scopes input"],
  ["tier", "#key-tier"],
  ["environment", "#key-environment"],
  ["expiresAt", "#key-expires"],
  ["allowedIps", "#key-allowed-ips"],
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
  const environment = String(data.get("environment") ?? "");
  if (environment) input.environment = environment;
  const allowedIps = readAllowedIps(String(data.get("allowedIps") ?? ""));
  if (allowedIps.length > 0) input.allowedIps = allowedIps;
  return input;
}
