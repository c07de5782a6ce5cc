/**
 * A key's audit log (`GET {basePath}/{key_id}/events`, the server's `events`): what happened, who
 * did it, when; newest first, a page at a time.
 */
import { html, nothing, type TemplateResult } from "lit";
import { formatDateTime } from "./format.js";
import { fill, type KeywardMessages } from "./messages.js";
import type { KeyEvent } from "./types.js";

export interface AuditLogState {
  events: KeyEvent[];
  nextCursor: string | null;
  loading: boolean;
}

export interface AuditLogOptions {
  state: AuditLogState;
  messages: KeywardMessages;
  locale: string | undefined;
  more(): void;
}

export function auditLog(options: AuditLogOptions): TemplateResult {
  const { state, messages, locale } = options;
  const { labels } = messages;
  return html`<h4 id="audit-log-title">${labels.auditLog}</h4>
    ${
      state.events.length === 0
        ? html`<p class="muted" aria-busy=${state.loading ? "true" : "false"}>
            ${state.loading ? labels.auditLogLoading : labels.auditLogEmpty}
          </p>`
        : html`<ol class="audit-log" aria-labelledby="audit-log-title">
            ${state.events.map(
              (event) => html`<li data-event-type=${event.type}>
                <span class="event-type">${messages.eventTypes[event.type] ?? event.type}</span>
                <span class="muted">${actorText(event.actor, labels)}</span>
                <time datetime=${event.occurredAt}>${formatDateTime(event.occurredAt, locale)}</time>
                ${detail(event)}
              </li>`,
            )}
          </ol>`
    }
    ${
      state.nextCursor
        ? html`<button type="button" id="older-events" ?disabled=${state.loading}
            @click=${options.more}>${labels.olderEvents}</button>`
        : nothing
    }`;
}

function actorText(actor: KeyEvent["actor"], labels: KeywardMessages["labels"]): string {
  switch (actor.type) {
    case "user":
      return fill(labels.actorUser, { id: actor.id ?? "" });
    case "operator":
      return labels.actorOperator;
    case "system":
      return labels.actorSystem;
    case "secret_scanner":
      return fill(labels.actorScanner, { id: actor.id ?? "" });
    default:
      return fill(labels.actorOther, { type: actor.type });
  }
}

/** The part of an event's data a person needs: a new hint, a new name. Never a secret. */
function detail(event: KeyEvent): TemplateResult | typeof nothing {
  const data = event.data;
  if (event.type === "key.rotated" && typeof data.hint === "string") {
    return html`<code class="hint">${String(data.previousHint ?? "")} → ${data.hint}</code>`;
  }
  if (event.type === "quota.threshold" && typeof data.threshold === "number") {
    return html`<span class="muted">(${data.threshold} %)</span>`;
  }
  const changes = data.changes as Record<string, unknown> | undefined;
  if (event.type === "key.updated" && changes) {
    const names = Object.keys(changes).join(", ");
    return html`<span class="muted">(${names})</span>`;
  }
  return nothing;
}
