/**
 * `<keyward-keys>`: where a signed-in person manages their own API keys, and their organizations'
 * keys, against the host's Keyward endpoints. The host provides the session token (attribute, property or a `getToken`
 * callback read before every call); the component never stores it anywhere but in memory.
 *
 * One modal `<dialog>` serves create, the confirmations and the one-time reveal: the browser then
 * keeps focus inside it, closes it on Escape and makes the rest of the page inert. Focus goes back
 * to the button that opened it, or, when that button is gone (a revoked key's row), to the list's
 * heading.
 */
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from "lit";
import { listAttribute, secondsListAttribute } from "./attribute-converters.js";
import type { AuditLogState } from "./audit-log.js";
import { createForm, fieldControls } from "./create-form.js";
import type { DialogState } from "./dialog-state.js";
import { confirmRevoke, confirmRotate, reveal } from "./dialog-views.js";
import { editForm } from "./edit-form.js";
import { type KeywardEventMap, withoutSecret } from "./events.js";
import { describeFailure, type Failure } from "./failure.js";
import { type CreateFormField, placeIssues } from "./field-issues.js";
import { keyTable } from "./key-table.js";
import {
  type CreateKeyInput,
  type KeyChanges,
  KeysApiError,
  KeysClient,
  type ServerChoices,
} from "./keys-client.js";
import { canCreate, type ListState, listStateView } from "./list-state.js";
import {
  fill,
  type KeywardMessages,
  type KeywardMessagesOverride,
  mergeMessages,
} from "./messages.js";
import { grantableTiers, offeredGracePeriods, pageSizeOf } from "./offers.js";
import { ownerSwitcher } from "./owner-switcher.js";
import { readSessionClaims, type SessionClaims } from "./session-claims.js";
import { keysStyles } from "./styles.js";
import type {
  KeyRecord,
  KeyWithSecret,
  OrganizationMembership,
  ScopeDescription,
  UsageReport,
} from "./types.js";
import { usagePanel } from "./usage-panel.js";

export const defaultBasePath = "/api/v1/api-keys";
export const defaultTiers = ["free", "pro", "enterprise"];
/** Keys shown at first, and added by "Show more keys" (`page-size`). */
export const defaultPageSize = 25;
/** Audit-log entries read at a time. */
const eventsPageSize = 20;

/** Why the list is not loaded while the host has given no token: not a failure, nothing was asked. */
const noSession = Symbol("no session token");

/** `theme`: `auto` follows the person's `prefers-color-scheme`. */
export type KeywardTheme = "light" | "dark" | "auto";

/**
 * @example
 * <script type="module" src="/node_modules/@keyward/ui/dist/bundle.js"></script>
 * <keyward-keys base-path="/api/v1/api-keys" tiers="free,pro"></keyward-keys>
 * <script>
 *   document.querySelector("keyward-keys").getToken = () => mySession.accessToken;
 * </script>
 */
export class KeywardKeys extends LitElement {
  static override styles = keysStyles;

  static override properties = {
    basePath: { type: String, attribute: "base-path" },
    token: { type: String },
    getToken: { attribute: false },
    tiers: { converter: listAttribute },
    gracePeriods: { attribute: "grace-periods", converter: secondsListAttribute },
    organizationId: { type: String, attribute: "organization-id" },
    organizations: { attribute: false },
    accountTier: { type: String, attribute: "account-tier" },
    environments: { converter: listAttribute },
    pageSize: { type: Number, attribute: "page-size" },
    locale: { type: String },
    messages: { attribute: false },
    theme: { type: String, reflect: true },
    keys: { state: true },
    loaded: { state: true },
    loadError: { state: true },
    fieldErrors: { state: true },
    scopes: { state: true },
    loading: { state: true },
    errors: { state: true },
    dialog: { state: true },
    dialogErrors: { state: true },
    busy: { state: true },
    copied: { state: true },
    announcement: { state: true },
    usageKey: { state: true },
    usage: { state: true },
    grace: { state: true },
    chosenOrganization: { state: true },
    nextCursor: { state: true },
    choices: { state: true },
    claims: { state: true },
    auditLog: { state: true },
  };

  /** Where the six endpoints live (`base-path`); default `/api/v1/api-keys`. */
  declare basePath: string;
  /** The session token (`token`), sent as `Authorization: Bearer …`. */
  declare token: string | undefined;
  /** Called before every request; wins over `token`. Return the current session token. */
  declare getToken: (() => string | undefined | Promise<string | undefined>) | undefined;
  /** The tiers offered when creating a key (`tiers="free,pro"`), lowest first. */
  declare tiers: string[];
  /** The locale dates are shown in (`locale`); default the browser's. */
  declare locale: string | undefined;
  /**
   * Grace periods offered when rotating, in seconds (`grace-periods="3600,86400"`); the server must
   * have `gracefulRotation` on. None (the default): rotation cuts the old secret off at once.
   */
  declare gracePeriods: number[];
  /**
   * Wording to replace or translate, merged over the defaults group by group (docs/ui.md):
   * `element.messages = { errors: { rate_limited: "Trop de requêtes. {retry}" } }`.
   */
  declare messages: KeywardMessagesOverride | undefined;
  /** `theme="light|dark|auto"`; `auto` (the default) follows `prefers-color-scheme`. */
  declare theme: KeywardTheme;
  /**
   * `organization-id="acme"`: show, create and act on that organization's keys only, with no
   * switcher (the server's `organizations`; the person needs a role there).
   */
  declare organizationId: string | undefined;
  /**
   * The organizations the person belongs to, for the switcher. Keyward keeps no memberships, so
   * the host says them; default: the session JWT's `orgs` claim (`[{ id, role, tier }]`).
   */
  declare organizations: OrganizationMembership[] | undefined;
  /**
   * The account's tier (`account-tier`): the create form offers the tiers at or below it. Default:
   * the session JWT's `tier` claim; neither: every tier (the server still refuses a higher one).
   */
  declare accountTier: string | undefined;
  /**
   * The environments a key may be created in, the default first (`environments="live,test"`).
   * Default: those the server's OpenAPI document lists, when it serves one.
   */
  declare environments: string[];
  /** How many keys a page shows (`page-size`, 1–1,000); default 25. */
  declare pageSize: number;

  declare private keys: KeyRecord[];
  /** Whether the list loaded for the current base path and token. */
  declare private loaded: boolean;
  /** Why the list could not load, while it could not. */
  declare private loadError: unknown;
  /** A 422's messages beside the create form's fields. */
  declare private fieldErrors: Partial<Record<CreateFormField, string>>;
  declare private scopes: ScopeDescription[];
  declare private loading: boolean;
  declare private errors: string[];
  declare private dialog: DialogState | undefined;
  declare private dialogErrors: string[];
  declare private busy: boolean;
  declare private copied: boolean;
  declare private announcement: string;
  declare private usageKey: KeyRecord | undefined;
  declare private usage: UsageReport | undefined;
  /** The grace chosen in the rotate dialog, in seconds. */
  declare private grace: number;
  /** The organization chosen in the switcher; undefined: the person's own keys. */
  declare private chosenOrganization: string | undefined;
  /** Where the next page of keys starts; null when the list is whole. */
  declare private nextCursor: string | null;
  /** What the server's OpenAPI document says about tiers, environments and updates. */
  declare private choices: ServerChoices;
  /** The session token's tier and organizations, read at each load. */
  declare private claims: SessionClaims;
  /** The audit log of the key whose usage is open. */
  declare private auditLog: AuditLogState | undefined;

  /** The element focused when the dialog closes; null: the list heading. */
  private returnFocusTo: HTMLElement | null = null;
  /** Which load is current: an older answer arriving late is dropped. */
  private loadGeneration = 0;
  /** The server's OpenAPI choices, asked once per base path. */
  private choicesLoaded: Promise<ServerChoices> | undefined;

  constructor() {
    super();
    this.basePath = defaultBasePath;
    this.token = undefined;
    this.getToken = undefined;
    this.tiers = defaultTiers;
    this.locale = undefined;
    this.gracePeriods = [];
    this.messages = undefined;
    this.theme = "auto";
    this.grace = 0;
    this.organizationId = undefined;
    this.organizations = undefined;
    this.accountTier = undefined;
    this.environments = [];
    this.pageSize = defaultPageSize;
    this.chosenOrganization = undefined;
    this.nextCursor = null;
    this.choices = {};
    this.claims = { organizations: [] };
    this.auditLog = undefined;
    this.keys = [];
    this.loaded = false;
    this.loadError = undefined;
    this.fieldErrors = {};
    this.scopes = [];
    this.loading = false;
    this.errors = [];
    this.dialog = undefined;
    this.dialogErrors = [];
    this.busy = false;
    this.copied = false;
    this.announcement = "";
    this.usageKey = undefined;
    this.usage = undefined;
  }

  /** Loads the keys (and the scopes) again. */
  async refresh(): Promise<void> {
    const generation = ++this.loadGeneration;
    this.loading = true;
    // A retry is loading again, not failed still: the failure shows again if it happens again.
    this.loadError = undefined;
    if (!(await this.hasToken())) {
      if (generation !== this.loadGeneration) return;
      // Not a failure to report: the host has not signed anyone in yet.
      this.keys = [];
      this.loaded = false;
      this.loading = false;
      this.loadError = noSession;
      return;
    }
    try {
      const client = this.client();
      this.claims = readSessionClaims(await this.currentToken());
      const chosen = this.chosenOrganization;
      if (chosen && !this.memberships().some((membership) => membership.id === chosen)) {
        // Another session, without that organization: its keys are not this person's to see. The
        // change of choice loads the person's own keys.
        this.chosenOrganization = undefined;
        return;
      }
      // As many keys as were shown: a reload after a change keeps the pages the person opened.
      const limit = Math.min(1000, Math.max(this.validPageSize(), this.keys.length));
      // Asked once per base path; a failed ask (not a 404: no document) is asked again next time.
      this.choicesLoaded ??= client.choices().catch(() => {
        this.choicesLoaded = undefined;
        return {};
      });
      const [page, scopes, choices] = await Promise.all([
        client.list({ organizationId: this.owner(), limit }),
        client.scopes(),
        this.choicesLoaded,
      ]);
      if (generation !== this.loadGeneration) return;
      this.keys = page.data;
      this.nextCursor = page.nextCursor ?? null;
      this.scopes = scopes;
      this.choices = choices;
      this.loaded = true;
      this.loadError = undefined;
      this.errors = [];
    } catch (error) {
      if (generation !== this.loadGeneration) return;
      // A list that could not be read is not shown as it was: it may be wrong by now.
      this.keys = [];
      this.loaded = false;
      this.loadError = error;
      this.report(error);
    } finally {
      if (generation === this.loadGeneration) this.loading = false;
    }
  }

  /**
   * Coming back to the page (from another tab or app): the keys may have been used meanwhile, so
   * the list is read again and "Last used" is current, without a reload. Not while a dialog is
   * open (the list under it must not move) or a load is under way.
   */
  private readonly onPageShown = (): void => {
    if (document.visibilityState !== "visible") return;
    if (this.loaded && !this.loading && !this.dialog) void this.refresh();
  };

  override connectedCallback(): void {
    super.connectedCallback();
    document.addEventListener("visibilitychange", this.onPageShown);
  }

  override disconnectedCallback(): void {
    document.removeEventListener("visibilitychange", this.onPageShown);
    super.disconnectedCallback();
  }

  /** Try again: the button goes while loading, so focus comes back to it, or to the list's heading. */
  private async retry(): Promise<void> {
    await this.refresh();
    await this.updateComplete;
    if (this.renderRoot.querySelector("#retry")) this.focusInRoot("#retry");
    else this.focusInRoot("#keys-title");
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has("basePath")) this.choicesLoaded = undefined;
    const ownerChanged = changed.has("organizationId") || changed.has("chosenOrganization");
    if (
      changed.has("basePath") ||
      changed.has("token") ||
      changed.has("getToken") ||
      ownerChanged
    ) {
      this.loaded = false;
      this.keys = [];
      this.nextCursor = null;
      this.usageKey = undefined;
      this.usage = undefined;
      this.auditLog = undefined;
      void this.refresh();
    }
  }

  protected override updated(changed: PropertyValues): void {
    const element = this.renderRoot.querySelector<HTMLDialogElement>("dialog");
    if (!element || !changed.has("dialog")) return;
    const previous = changed.get("dialog") as DialogState | undefined;
    if (this.dialog && !element.open) {
      element.showModal();
    } else if (!this.dialog && element.open) {
      element.close();
    }
    if (this.dialog?.kind === "reveal" && previous?.kind !== "reveal") {
      this.focusInRoot("#copy");
    }
  }

  override render(): TemplateResult {
    const state = this.listState();
    const messages = this.resolvedMessages();
    const organizations = this.memberships();
    return html`
      ${
        !this.organizationId && organizations.length > 0
          ? ownerSwitcher({
              organizations,
              chosen: this.chosenOrganization,
              labels: messages.labels,
              choose: (id) => {
                this.chosenOrganization = id;
              },
            })
          : nothing
      }
      <div class="toolbar">
        <h2 id="keys-title" tabindex="-1">${this.listTitle(messages)}</h2>
        ${
          canCreate(state)
            ? html`<button type="button" class="primary" id="create" @click=${this.openCreate}>
                Create key
              </button>`
            : nothing
        }
      </div>
      <p class="visually-hidden" role="status" aria-live="polite">
        ${this.dialog ? "" : this.announcement}
      </p>
      ${this.errorList(this.errors, "errors")}
      <div aria-busy=${this.loading ? "true" : "false"}>
        ${
          state.kind !== "listed"
            ? listStateView(state, this.resolvedMessages(), () => void this.retry())
            : html`${keyTable(
                this.keys,
                {
                  usage: (key) => void this.openUsage(key),
                  rotate: (key, opener) => {
                    // Every rotation starts from "at once": a grace is always a choice made now.
                    this.grace = 0;
                    this.openDialog({ kind: "confirm-rotate", key }, opener);
                  },
                  revoke: (key, opener) => this.openDialog({ kind: "confirm-revoke", key }, opener),
                  ...(this.choices.keyUpdates === false
                    ? {}
                    : {
                        edit: (key: KeyRecord, opener: HTMLElement) =>
                          this.openDialog({ kind: "edit", key }, opener),
                        setEnabled: (key: KeyRecord, enabled: boolean, opener: HTMLElement) =>
                          void this.setEnabled(key, enabled, opener),
                      }),
                },
                this.locale,
                messages.labels,
              )}
              ${
                this.nextCursor
                  ? html`<button type="button" class="load-more" id="load-more"
                      ?disabled=${this.loading} @click=${() => void this.loadMore()}>
                      ${messages.labels.loadMore}
                    </button>`
                  : nothing
              }`
        }
      </div>
      ${
        this.usageKey
          ? usagePanel({
              key: this.usageKey,
              report: this.usage,
              events: this.auditLog,
              messages,
              today: new Date(),
              locale: this.locale,
              close: () => this.closeUsage(),
              moreEvents: () => void this.loadEvents(this.usageKey!, true),
            })
          : nothing
      }
      <dialog part="dialog" aria-labelledby="dialog-title" @close=${this.onDialogClosed}>
        ${this.dialogContent()}
        <p class="visually-hidden" role="status" aria-live="polite">
          ${this.dialog ? this.announcement : ""}
        </p>
      </dialog>
    `;
  }

  private dialogContent(): TemplateResult | typeof nothing {
    const dialog = this.dialog;
    if (!dialog) return nothing;
    const errors = this.errorList(this.dialogErrors, "dialog-errors");
    const cancel = () => this.closeDialog();
    switch (dialog.kind) {
      case "create": {
        const organization = this.owner();
        const labels = this.resolvedMessages().labels;
        return html`${errors}${createForm({
          scopes: this.scopes,
          tiers: this.offeredTiers(),
          environments:
            this.environments.length > 0 ? this.environments : (this.choices.environments ?? []),
          organizationId: organization,
          organizationName:
            organization === undefined ? undefined : this.organizationName(organization),
          labels,
          busy: this.busy,
          fieldErrors: this.fieldErrors,
          submit: (input) => void this.create(input),
          cancel,
        })}`;
      }
      case "edit":
        return html`${errors}${editForm({
          key: dialog.key,
          labels: this.resolvedMessages().labels,
          busy: this.busy,
          fieldErrors: this.fieldErrors,
          submit: (changes) => void this.saveChanges(dialog.key, changes),
          cancel,
        })}`;
      case "confirm-rotate":
        return html`${errors}${confirmRotate({
          key: dialog.key,
          busy: this.busy,
          gracePeriods: offeredGracePeriods(this.gracePeriods, this.choices.maxGracePeriodSeconds),
          grace: this.grace,
          chooseGrace: (seconds) => {
            this.grace = seconds;
          },
          confirm: () => void this.rotate(dialog.key, this.grace),
          cancel,
        })}`;
      case "confirm-revoke":
        return html`${errors}${confirmRevoke({
          key: dialog.key,
          busy: this.busy,
          confirm: () => void this.revoke(dialog.key),
          cancel,
        })}`;
      case "reveal":
        return html`${errors}${reveal({
          key: dialog.key,
          action: dialog.action,
          locale: this.locale,
          copied: this.copied,
          copy: () => void this.copySecret(dialog.key),
          done: cancel,
        })}`;
    }
  }

  private errorList(messages: string[], id: string): TemplateResult | typeof nothing {
    if (messages.length === 0) return nothing;
    return html`<div class="errors" id=${id} role="alert" part="errors">
      ${
        messages.length === 1
          ? html`<p style="margin:0">${messages[0]}</p>`
          : html`<ul>${messages.map((message) => html`<li>${message}</li>`)}</ul>`
      }
    </div>`;
  }

  private openCreate = (event: Event) => {
    this.openDialog({ kind: "create" }, event.currentTarget as HTMLElement);
  };

  private openDialog(state: DialogState, opener: HTMLElement): void {
    this.returnFocusTo = opener;
    this.dialogErrors = [];
    this.fieldErrors = {};
    this.copied = false;
    this.announcement = "";
    this.dialog = state;
  }

  private closeDialog(): void {
    this.dialog = undefined;
  }

  /** Escape, Cancel, Done: the secret leaves memory, and focus goes back where it came from. */
  private onDialogClosed = (event: Event) => {
    // \`close\` fires a task after the dialog closed: a person quick enough (Escape, then Enter on
    // "Create key") may have opened it again by then. That close is over; this one must not
    // empty the new dialog under their hands.
    if ((event.currentTarget as HTMLDialogElement).open) return;
    this.dialog = undefined;
    this.dialogErrors = [];
    this.fieldErrors = {};
    this.busy = false;
    const target = this.returnFocusTo;
    this.returnFocusTo = null;
    void this.updateComplete.then(() => {
      if (target?.isConnected) target.focus();
      else this.focusInRoot("#keys-title");
    });
  };

  private async create(input: CreateKeyInput): Promise<void> {
    await this.act(async () => {
      const created = await this.client().create(input);
      this.showSecret(created, "created");
      this.emit("keyward-key-created", { key: withoutSecret(created) });
      await this.refresh();
    });
  }

  /** The edit dialog's changes; nothing changed closes it without a call. */
  private async saveChanges(key: KeyRecord, changes: KeyChanges): Promise<void> {
    if (Object.keys(changes).length === 0) {
      this.closeDialog();
      return;
    }
    await this.act(async () => {
      const updated = await this.client().update(key.id, changes);
      this.emit("keyward-key-updated", { key: updated });
      await this.refresh();
      await this.updateComplete;
      this.announcement = fill(this.resolvedMessages().labels.updatedAnnouncement, {
        name: updated.name,
      });
      this.closeDialog();
    });
  }

  /**
   * Disable or enable, at once (it is undone by the other button): the row's button changes to
   * its opposite, and focus moves to it.
   */
  private async setEnabled(key: KeyRecord, enabled: boolean, opener: HTMLElement): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    opener.setAttribute("aria-disabled", "true");
    try {
      const updated = await this.client().update(key.id, { enabled });
      this.emit("keyward-key-updated", { key: updated });
      await this.refresh();
      await this.updateComplete;
      const labels = this.resolvedMessages().labels;
      const name = { name: updated.name };
      this.announcement = fill(
        enabled ? labels.enabledAnnouncement : labels.disabledAnnouncement,
        name,
      );
      const label = fill(enabled ? labels.disableLabel : labels.enableLabel, name);
      const next = [
        ...this.renderRoot.querySelectorAll<HTMLElement>(`tr[data-key-id="${key.id}"] button`),
      ].find((button) => button.getAttribute("aria-label") === label);
      if (next) next.focus();
      else this.focusInRoot("#keys-title");
    } catch (error) {
      this.errors = [this.report(error).text];
    } finally {
      opener.removeAttribute("aria-disabled");
      this.busy = false;
    }
  }

  /** The next page of keys, after those shown; focus goes to the first new key's row. */
  private async loadMore(): Promise<void> {
    const cursor = this.nextCursor;
    if (!cursor || this.loading) return;
    const generation = this.loadGeneration;
    this.loading = true;
    try {
      const page = await this.client().list({
        organizationId: this.owner(),
        limit: this.validPageSize(),
        cursor,
      });
      if (generation !== this.loadGeneration) return;
      const first = page.data[0];
      this.keys = [...this.keys, ...page.data];
      this.nextCursor = page.nextCursor ?? null;
      await this.updateComplete;
      if (first) {
        this.renderRoot.querySelector<HTMLElement>(`tr[data-key-id="${first.id}"] th`)?.focus();
      }
    } catch (error) {
      this.errors = [this.report(error).text];
    } finally {
      if (generation === this.loadGeneration) this.loading = false;
    }
  }

  private async rotate(key: KeyRecord, graceSeconds: number): Promise<void> {
    await this.act(async () => {
      const rotated = await this.client().rotate(key.id, graceSeconds);
      this.showSecret(rotated, "rotated");
      this.emit("keyward-key-rotated", { key: withoutSecret(rotated) });
      await this.refresh();
    });
  }

  private async revoke(key: KeyRecord): Promise<void> {
    await this.act(async () => {
      const revocation = await this.client().revoke(key.id);
      this.emit("keyward-key-revoked", revocation);
      // The list first: closing then finds the row's Revoke button gone and focuses the heading.
      await this.refresh();
      await this.updateComplete;
      this.announcement = `Key “${key.name}” revoked.`;
      this.closeDialog();
    });
  }

  private showSecret(key: KeyWithSecret, action: "created" | "rotated"): void {
    this.copied = false;
    this.dialog = { kind: "reveal", key, action };
    this.announcement =
      action === "created"
        ? `Key “${key.name}” created. Copy it now: you will not see it again.`
        : `Key “${key.name}” rotated. Copy the new secret now: you will not see it again.`;
  }

  /** Runs a dialog action: one at a time, its API errors shown in the dialog. */
  private async act(action: () => Promise<void>): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.dialogErrors = [];
    this.fieldErrors = {};
    try {
      await action();
    } catch (error) {
      this.showDialogFailure(error, this.report(error));
    } finally {
      this.busy = false;
    }
  }

  /** A refusal inside the dialog: a 422's issues beside their fields, the rest above the form. */
  private showDialogFailure(error: unknown, failure: Failure): void {
    const issues = error instanceof KeysApiError ? error.issues : [];
    if (issues.length === 0) {
      this.dialogErrors = [failure.text];
      return;
    }
    const messages = this.resolvedMessages();
    const placed = placeIssues(issues, messages);
    const kind = this.dialog?.kind;
    const besideFields =
      kind === "create"
        ? placed.byField
        : kind === "edit"
          ? pick(placed.byField, ["name", "allowedIps"])
          : {};
    const elsewhere = Object.entries(placed.byField)
      .filter(([field]) => !(field in besideFields))
      .map(([field, text]) => `${field}: ${text}`);
    this.fieldErrors = besideFields;
    const summary =
      Object.keys(besideFields).length > 0 ? messages.states.checkFields : failure.text;
    this.dialogErrors = [summary, ...elsewhere, ...placed.general];
    void this.updateComplete.then(() => this.focusFirstInvalidField());
  }

  private focusFirstInvalidField(): void {
    const first = fieldControls.find(([field]) => this.fieldErrors[field]);
    if (first) this.focusInRoot(first[1]);
  }

  private async copySecret(key: KeyWithSecret): Promise<void> {
    try {
      await navigator.clipboard.writeText(key.key);
    } catch {
      // No clipboard permission (an insecure origin, a denied prompt): select the text instead,
      // so the person can copy it with their own keys.
      const input = this.renderRoot.querySelector<HTMLInputElement>("#secret");
      input?.focus();
      input?.select();
      this.announcement = "Could not copy automatically: the key is selected, press Ctrl+C or ⌘C.";
      return;
    }
    this.copied = true;
    this.announcement = "Key copied to the clipboard.";
    this.emit("keyward-secret-copied", { id: key.id });
  }

  private async openUsage(key: KeyRecord): Promise<void> {
    this.usageKey = key;
    this.usage = undefined;
    this.auditLog = { events: [], nextCursor: null, loading: true };
    await this.updateComplete;
    this.focusInRoot("#usage-title");
    void this.loadEvents(key, false);
    try {
      const report = await this.client().usage(key.id);
      if (this.usageKey?.id !== key.id) return;
      this.usage = report;
      // The list may be older than the report: show the same last use in both.
      this.keys = this.keys.map((listed) =>
        listed.id === key.id ? lastUseOf(listed, report) : listed,
      );
    } catch (error) {
      this.errors = [this.report(error).text];
      this.usageKey = undefined;
    }
  }

  /**
   * The key's audit log, first page or the next (`more`). A server without `events` answers 404:
   * the panel then has no activity section, rather than an error about a feature it lacks.
   */
  private async loadEvents(key: KeyRecord, more: boolean): Promise<void> {
    const current = this.auditLog;
    if (more && !current?.nextCursor) return;
    if (current) this.auditLog = { ...current, loading: true };
    try {
      const page = await this.client().events(key.id, {
        limit: eventsPageSize,
        cursor: more ? current?.nextCursor : null,
      });
      if (this.usageKey?.id !== key.id) return;
      const before = more ? (this.auditLog?.events ?? []) : [];
      this.auditLog = {
        events: [...before, ...page.data],
        nextCursor: page.nextCursor ?? null,
        loading: false,
      };
    } catch (error) {
      if (this.usageKey?.id !== key.id) return;
      this.auditLog = undefined;
      const missing =
        error instanceof KeysApiError && (error.status === 404 || error.status === 405);
      if (!missing) this.errors = [this.report(error).text];
    }
  }

  private closeUsage(): void {
    const id = this.usageKey?.id;
    this.usageKey = undefined;
    this.usage = undefined;
    this.auditLog = undefined;
    void this.updateComplete.then(() => {
      const button = this.renderRoot.querySelector<HTMLElement>(`tr[data-key-id="${id}"] button`);
      if (button) button.focus();
      else this.focusInRoot("#keys-title");
    });
  }

  private client(): KeysClient {
    return new KeysClient(this.basePath, () => (this.getToken ? this.getToken() : this.token));
  }

  private async hasToken(): Promise<boolean> {
    return Boolean(await this.currentToken());
  }

  private async currentToken(): Promise<string | undefined> {
    return this.getToken ? await this.getToken() : this.token;
  }

  /** Whose keys are shown: the fixed `organization-id`, the switcher's choice, or (undefined) the person's. */
  private owner(): string | undefined {
    return this.organizationId || this.chosenOrganization || undefined;
  }

  /** The organizations the switcher offers: the host's list, else the session's `orgs` claim. */
  private memberships(): OrganizationMembership[] {
    return this.organizations ?? this.claims.organizations;
  }

  private organizationName(id: string): string {
    return this.memberships().find((membership) => membership.id === id)?.name ?? id;
  }

  private listTitle(messages: KeywardMessages): string {
    const organization = this.owner();
    return organization === undefined
      ? "API keys"
      : fill(messages.labels.organizationKeys, {
          organization: this.organizationName(organization),
        });
  }

  /**
   * The tiers the create form offers: the host's `tiers` (or, left at the default, the server's
   * from its OpenAPI document), at or below the tier of whoever will own the key: the
   * organization's plan for its keys, the account's for the person's own.
   */
  private offeredTiers(): string[] {
    const tiers = this.tiers === defaultTiers ? (this.choices.tiers ?? this.tiers) : this.tiers;
    const organization = this.owner();
    const ceiling =
      organization === undefined
        ? (this.accountTier ?? this.claims.tier)
        : this.memberships().find((membership) => membership.id === organization)?.tier;
    return grantableTiers(tiers, ceiling);
  }

  private validPageSize(): number {
    return pageSizeOf(this.pageSize, defaultPageSize);
  }

  /** What the list area shows: loading, signed out, a failure, no keys yet, or the keys. */
  private listState(): ListState {
    if (this.loadError === noSession) {
      return { kind: "signed-out", text: this.resolvedMessages().states.signedOut };
    }
    if (this.loadError !== undefined) {
      const { signedOut, text } = this.describe(this.loadError);
      return signedOut ? { kind: "signed-out", text } : { kind: "failed", text };
    }
    if (!this.loaded) return { kind: "loading" };
    return this.keys.length === 0 ? { kind: "empty" } : { kind: "listed" };
  }

  private resolvedMessages(): KeywardMessages {
    return mergeMessages(this.messages);
  }

  private describe(error: unknown): Failure {
    return describeFailure(error, this.resolvedMessages(), this.locale);
  }

  /**
   * The failure as people read it; and the event that tells the host. Any 401, whichever call
   * met it, means the session is gone: the list makes way for the signed-out state.
   */
  private report(error: unknown): Failure {
    const failure = this.describe(error);
    if (failure.signedOut) {
      this.keys = [];
      this.loaded = false;
      this.loadError = error;
    }
    const issues = error instanceof KeysApiError ? error.messages : [];
    this.emit("keyward-error", {
      status: failure.status,
      code: failure.code,
      messages: [failure.text, ...(failure.status === 422 ? issues : [])],
    });
    return failure;
  }

  private emit<K extends keyof KeywardEventMap>(
    name: K,
    detail: KeywardEventMap[K] extends CustomEvent<infer D> ? D : never,
  ): void {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }

  private focusInRoot(selector: string): void {
    this.renderRoot.querySelector<HTMLElement>(selector)?.focus();
  }
}

/** The entries of `record` under `names`. */
function pick<K extends string, V>(
  record: Partial<Record<K, V>>,
  names: K[],
): Partial<Record<K, V>> {
  return Object.fromEntries(
    Object.entries(record).filter(([name]) => (names as string[]).includes(name)),
  ) as Partial<Record<K, V>>;
}

declare global {
  interface HTMLElementTagNameMap {
    "keyward-keys": KeywardKeys;
  }
  interface HTMLElementEventMap extends KeywardEventMap {}
}

/** A listed key with the last use (and its address) of its fresher usage report. */
function lastUseOf(listed: KeyRecord, report: UsageReport): KeyRecord {
  const { lastUsedAddress: _older, ...rest } = listed;
  return report.lastUsedAddress === undefined
    ? { ...rest, lastUsedAt: report.lastUsedAt }
    : { ...rest, lastUsedAt: report.lastUsedAt, lastUsedAddress: report.lastUsedAddress };
}
