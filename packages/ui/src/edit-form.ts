/**
 * The edit dialog (`PATCH {basePath}/{key_id}`, the server's `keyUpdates`): a new name and the IP
 * allowlist. Disabling and enabling are row buttons of their own: one click, undone by another.
 */
import { html, nothing, type TemplateResult } from "lit";
import { allowedIpsField, describedBy, fieldError, readAllowedIps } from "./create-form.js";
import type { CreateFormField } from "./field-issues.js";
import type { KeyChanges } from "./keys-client.js";
import { fill, type KeywardMessages } from "./messages.js";
import type { KeyRecord } from "./types.js";

export interface EditFormOptions {
  key: KeyRecord;
  labels: KeywardMessages["labels"];
  busy: boolean;
  fieldErrors: Partial<Record<CreateFormField, string>>;
  /** Only the fields whose value changed; nothing changed: an empty object. */
  submit(changes: KeyChanges): void;
  cancel(): void;
}

export function editForm(options: EditFormOptions): TemplateResult {
  const { key, labels } = options;
  const errors = options.fieldErrors;
  const onSubmit = (event: SubmitEvent) => {
    event.preventDefault();
    options.submit(changesOf(key, event.currentTarget as HTMLFormElement));
  };
  return html`<form @submit=${onSubmit} novalidate>
    <h2 id="dialog-title">${fill(labels.editTitle, { name: key.name })}</h2>
    <div class="field">
      <label for="key-name">Name</label>
      <input id="key-name" name="name" type="text" maxlength="100" autocomplete="off" required
        autofocus .value=${key.name} aria-invalid=${errors.name ? "true" : "false"}
        aria-describedby=${describedBy("", "key-name-error", errors.name) || nothing} />
      ${fieldError("key-name-error", errors.name)}
    </div>
    ${allowedIpsField("key-allowed-ips", labels, errors.allowedIps, (key.allowedIps ?? []).join("\n"))}
    <div class="buttons">
      <button type="button" @click=${options.cancel}>Cancel</button>
      <button type="submit" class="primary" ?disabled=${options.busy}>${labels.save}</button>
    </div>
  </form>`;
}

function changesOf(key: KeyRecord, form: HTMLFormElement): KeyChanges {
  const data = new FormData(form);
  const changes: KeyChanges = {};
  const name = String(data.get("name") ?? "");
  if (name !== key.name) changes.name = name;
  const allowedIps = readAllowedIps(String(data.get("allowedIps") ?? ""));
  const current = key.allowedIps ?? [];
  if (allowedIps.join("\n") !== current.join("\n")) {
    changes.allowedIps = allowedIps.length > 0 ? allowedIps : null;
  }
  return changes;
}
