/**
 * Whose keys are shown: the person's own, or one of their organizations' (the server's
 * `organizations`). A native `<select>`: labelled, keyboard-operable and sized for touch as is.
 */
import { html, type TemplateResult } from "lit";
import type { KeywardMessages } from "./messages.js";
import type { OrganizationMembership } from "./types.js";

export interface OwnerSwitcherOptions {
  organizations: OrganizationMembership[];
  /** The organization chosen; undefined: the person's own keys. */
  chosen: string | undefined;
  labels: KeywardMessages["labels"];
  choose(organizationId: string | undefined): void;
}

export function ownerSwitcher(options: OwnerSwitcherOptions): TemplateResult {
  const onChange = (event: Event) => {
    const value = (event.currentTarget as HTMLSelectElement).value;
    options.choose(value === "" ? undefined : value);
  };
  return html`<div class="owner-switcher">
    <label for="owner">${options.labels.owner}</label>
    <select id="owner" @change=${onChange}>
      <option value="" ?selected=${options.chosen === undefined}>${options.labels.ownKeys}</option>
      ${options.organizations.map((organization) => {
        const name = organization.name ?? organization.id;
        const label = organization.role ? `${name} (${organization.role})` : name;
        const chosen = options.chosen === organization.id;
        return html`<option value=${organization.id} ?selected=${chosen}>${label}</option>`;
      })}
    </select>
  </div>`;
}
