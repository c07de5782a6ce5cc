/**
 * The list of keys: name, status, hint, scopes, tier, last use, and the actions a status allows.
 * Each cell carries its column's name (`data-label`), which a narrow screen shows in front of the
 * value when the rows become stacked cards (responsive-styles.ts).
 */

import { html, nothing, type TemplateResult } from "lit";
import { formatDateTime, formatLastUse } from "./format.js";
import { fill, type KeywardMessages } from "./messages.js";
import { describeResources } from "./resources-text.js";
import type { KeyRecord } from "./types.js";

export interface KeyTableActions {
  usage(key: KeyRecord, opener: HTMLElement): void;
  rotate(key: KeyRecord, opener: HTMLElement): void;
  revoke(key: KeyRecord, opener: HTMLElement): void;
  /** Absent when the server cannot change keys (no `keyUpdates`): no Edit or Disable buttons. */
  edit?(key: KeyRecord, opener: HTMLElement): void;
  setEnabled?(key: KeyRecord, enabled: boolean, opener: HTMLElement): void;
}

/** The keys, one row each; an empty list is the list state's to show (list-state.ts). */
export function keyTable(
  keys: KeyRecord[],
  actions: KeyTableActions,
  locale: string | undefined,
  labels: KeywardMessages["labels"],
): TemplateResult {
  return html`<table part="table">
    <caption class="visually-hidden">Your API keys</caption>
    <thead>
      <tr>
        <th scope="col">Name</th>
        <th scope="col">Status</th>
        <th scope="col">Key</th>
        <th scope="col">Scopes</th>
        <th scope="col">Tier</th>
        <th scope="col">Last used</th>
        <th scope="col">Created</th>
        <th scope="col"><span class="visually-hidden">Actions</span></th>
      </tr>
    </thead>
    <tbody>
      ${keys.map((key) => keyRow(key, actions, locale, labels))}
    </tbody>
  </table>`;
}

function keyRow(
  key: KeyRecord,
  actions: KeyTableActions,
  locale: string | undefined,
  labels: KeywardMessages["labels"],
): TemplateResult {
  const opener = (event: Event) => event.currentTarget as HTMLElement;
  // Rotating needs a live key (410 otherwise); revoking works until the key is revoked.
  const canRotate = key.status === "active";
  const canRevoke = key.status !== "revoked";
  // Changing needs a key that is not revoked or expired (410 otherwise).
  const canChange = key.status === "active" || key.status === "disabled";
  const name = { name: key.name };
  return html`<tr data-key-id=${key.id}>
    <th scope="row" tabindex="-1">${key.name}</th>
    <td data-label="Status"><span class="status status-${key.status}">${statusLabel(key.status)}</span></td>
    <td data-label="Key"><span class="cell">
      <code class="hint">${key.hint}</code>
      ${key.environment ? html` <span class="badge">${key.environment}</span>` : nothing}
      ${
        key.allowedIps
          ? html`<br /><span class="muted">${labels.allowedIps}: ${key.allowedIps.join(", ")}</span>`
          : nothing
      }
      ${
        key.resources
          ? html`<br /><span class="muted resources">${labels.resources}: ${describeResources(key.resources)}</span>`
          : nothing
      }
    </span></td>
    <td data-label="Scopes">${key.scopes.join(", ")}</td>
    <td data-label="Tier">${key.tier}</td>
    <td data-label="Last used"><span class="cell">
      ${formatLastUse(key.lastUsedAt, locale)}
      ${
        key.lastUsedAddress
          ? html`<br /><span class="muted last-used-address">${fill(labels.lastUsedFrom, { address: key.lastUsedAddress })}</span>`
          : nothing
      }
    </span></td>
    <td data-label="Created"><span class="cell">
      ${formatDateTime(key.createdAt, locale)}
      ${
        key.expiresAt
          ? html`<br /><span class="muted">Expires ${formatDateTime(key.expiresAt, locale)}</span>`
          : nothing
      }
    </span></td>
    <td class="actions">
      <button type="button" aria-label="Usage of ${key.name}"
        @click=${(event: Event) => actions.usage(key, opener(event))}>Usage</button>
      ${
        canChange && actions.edit
          ? html`<button type="button" aria-label=${fill(labels.editLabel, name)}
            @click=${(event: Event) => actions.edit?.(key, opener(event))}>${labels.edit}</button>`
          : nothing
      }
      ${
        canChange && actions.setEnabled
          ? key.status === "disabled"
            ? html`<button type="button" aria-label=${fill(labels.enableLabel, name)}
              @click=${(event: Event) => actions.setEnabled?.(key, true, opener(event))}>
                ${labels.enable}
              </button>`
            : html`<button type="button" aria-label=${fill(labels.disableLabel, name)}
              @click=${(event: Event) => actions.setEnabled?.(key, false, opener(event))}>
                ${labels.disable}
              </button>`
          : nothing
      }
      ${
        canRotate
          ? html`<button type="button" aria-label="Rotate ${key.name}"
            @click=${(event: Event) => actions.rotate(key, opener(event))}>Rotate</button>`
          : nothing
      }
      ${
        canRevoke
          ? html`<button type="button" aria-label="Revoke ${key.name}"
            @click=${(event: Event) => actions.revoke(key, opener(event))}>Revoke</button>`
          : nothing
      }
    </td>
  </tr>`;
}

function statusLabel(status: string): string {
  return status.charAt(0).toUpperCase() + status.slice(1);
}
