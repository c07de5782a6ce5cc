/**
 * Every sentence the component shows about the state of the list and about a refusal, in one table
 * a host can override or translate: `element.messages = { errors: { rate_limited: "…" } }` is
 * merged over these defaults, group by group, so a host names only what it changes.
 *
 * Errors are worded by the stable `code` of docs/errors.md, never by the API's `detail` (which is
 * for developers and may change). `{retry}` in a message becomes when to try again, from the
 * response's `Retry-After`, in the element's locale ("in 2 minutes"); without one, `retryLater`.
 */

/** The codes of docs/errors.md the component can meet, and the fallbacks for answers without one. */
export type ErrorMessageKey =
  | "missing_credentials"
  | "invalid_token"
  | "invalid_api_key"
  | "api_key_not_allowed"
  | "api_key_required"
  | "cross_site_request"
  | "insufficient_scope"
  | "tier_not_allowed"
  | "not_owner"
  | "ip_not_allowed"
  | "resource_not_allowed"
  | "too_many_keys"
  | "not_member"
  | "role_not_permitted"
  | "scope_not_grantable"
  | "key_not_found"
  | "route_not_found"
  | "method_not_allowed"
  | "rotation_conflict"
  | "update_conflict"
  | "precondition_failed"
  | "key_gone"
  | "malformed_body"
  | "body_too_large"
  | "validation_failed"
  | "rate_limited"
  | "quota_exceeded"
  | "credits_exhausted"
  | "failed_lookups_limited"
  | "malformed_request"
  | "request_timeout"
  | "unsupported_media_type"
  | "headers_too_large"
  | "http_error"
  | "invalid_signature"
  | "scanner_keys_unavailable"
  | "reports_busy"
  | "internal"
  /** The server could not be reached at all (connection refused, offline, DNS, CORS). */
  | "unreachable"
  /** A 403 without a code (a proxy, the host's own middleware). */
  | "forbidden"
  /** A 5xx without a code (a proxy's 502, a crashed host). */
  | "server_error"
  /** Anything else without a code: the API's own detail follows it. */
  | "unknown";

export interface KeywardMessages {
  states: {
    loading: string;
    empty: string;
    /** Shown instead of the list (and without the Create button) while nobody is signed in. */
    signedOut: string;
    tryAgain: string;
    /** `{retry}`: "in 2 minutes", in the element's locale. */
    retryIn: string;
    retryLater: string;
    /** Above the fields of the create form when a 422 put a message beside one of them. */
    checkFields: string;
  };
  errors: Record<ErrorMessageKey, string>;
  /**
   * Beside a create-form field after a 422: by `field.type` (`name.string_too_short`) or by `type`
   * alone; the API's own `msg` when neither is listed.
   */
  fields: Record<string, string>;
  /**
   * The wording of the controls for organizations, environments, allowlists, editing, disabling,
   * pages, quota, credits and the audit log. `{name}`, `{used}`… are filled in.
   */
  labels: {
    /** The organization switcher's label, and its choice for the person's own keys. */
    owner: string;
    ownKeys: string;
    /** A heading over an organization's keys: `{organization}`. */
    organizationKeys: string;
    /** The create form's heading for an organization's key: `{organization}`. */
    createForOrganization: string;
    environment: string;
    /** The default environment's choice: `{environment}`. */
    defaultEnvironment: string;
    allowedIps: string;
    allowedIpsHint: string;
    /** Before the resources a key is limited to, shown read-only in its row. */
    resources: string;
    /** Beside a key's last use, the client address it came from (`lastUsedAddress`): `{address}`. */
    lastUsedFrom: string;
    /** Row buttons, with the key's `{name}` for screen readers. */
    edit: string;
    editLabel: string;
    disable: string;
    disableLabel: string;
    enable: string;
    enableLabel: string;
    editTitle: string;
    save: string;
    disabledAnnouncement: string;
    enabledAnnouncement: string;
    updatedAnnouncement: string;
    /** Below a list with more keys than it shows. */
    loadMore: string;
    /** The usage panel's limits: `{used}`, `{limit}`, `{period}`, `{time}`, `{amount}`. */
    quota: string;
    quotaUsed: string;
    quotaResets: string;
    credits: string;
    creditsRemaining: string;
    creditsRefill: string;
    creditsNoRefill: string;
    periodDay: string;
    periodWeek: string;
    periodMonth: string;
    /**
     * The usage panel's budgets (`budgets()` on the server): `{spent}`, `{held}`, `{left}`,
     * `{limit}`, `{period}`, `{time}`.
     */
    budgets: string;
    budgetKey: string;
    budgetOwn: string;
    budgetOwner: string;
    budgetStanding: string;
    budgetResets: string;
    /** The audit log in the usage panel. */
    auditLog: string;
    auditLogEmpty: string;
    auditLogLoading: string;
    olderEvents: string;
    actorUser: string;
    actorOperator: string;
    actorSystem: string;
    actorScanner: string;
    actorOther: string;
  };
  /** What each event type of the audit log reads as; an unknown type shows as it is. */
  eventTypes: Record<string, string>;
}

/** What a host passes: any part of any group. */
export type KeywardMessagesOverride = {
  [Group in keyof KeywardMessages]?: Partial<KeywardMessages[Group]>;
};

export const defaultMessages: KeywardMessages = {
  states: {
    loading: "Loading keys…",
    empty: "No API keys yet. Create one to call the API from your own code.",
    signedOut: "You are signed out. Sign in to see and manage your API keys.",
    tryAgain: "Try again",
    retryIn: "You can try again {retry}.",
    retryLater: "Try again later.",
    checkFields: "Some fields need a change: see the messages beside them.",
  },
  errors: {
    missing_credentials: "You are signed out. Sign in to see and manage your API keys.",
    invalid_token: "Your session has expired or is not valid. Sign in again to manage your keys.",
    invalid_api_key: "That API key is not valid: it may be revoked, expired or replaced.",
    api_key_not_allowed:
      "API keys cannot manage API keys. Sign in with your account to manage them.",
    api_key_required: "This needs an API key, not your signed-in session.",
    cross_site_request: "This page may not change your keys. Open it from the site itself.",
    insufficient_scope: "The key lacks a scope this needs.",
    tier_not_allowed:
      "Your account's plan does not include that tier. Choose a lower tier or upgrade your plan.",
    not_owner: "That key is not yours to change.",
    ip_not_allowed: "That key cannot be used from this network address.",
    resource_not_allowed: "That key is limited to other resources.",
    too_many_keys:
      "You have as many keys as your account allows. Revoke one you no longer use, then create another.",
    not_member: "You are not a member of that organization.",
    role_not_permitted: "Your role in the organization does not allow this.",
    scope_not_grantable: "Your role in the organization cannot grant one of these scopes.",
    key_not_found: "That key does not exist any more. Reload the list.",
    route_not_found: "The key service is not at this address: the page's base-path may be wrong.",
    method_not_allowed: "The server does not allow this action.",
    rotation_conflict:
      "Someone rotated this key at the same moment. No new secret was issued: try again.",
    update_conflict:
      "The key kept changing while it was being updated. Nothing changed: try again.",
    precondition_failed:
      "The key changed since it was loaded. Nothing changed: reload and try again.",
    key_gone: "This key is revoked or expired, so it cannot be changed any more.",
    malformed_body: "The server could not read the request. Try again.",
    body_too_large: "The request is too large for the server.",
    validation_failed: "Some fields need a change.",
    rate_limited: "Too many requests in a short time. {retry}",
    quota_exceeded: "Your account's request quota is used up. {retry}",
    credits_exhausted: "The key has no credits left. {retry}",
    failed_lookups_limited: "Too many unknown keys were tried from this network. {retry}",
    malformed_request: "The server refused the request as malformed.",
    request_timeout: "The request took too long to reach the server. Try again.",
    unsupported_media_type: "The server could not read the request's format.",
    headers_too_large: "The request's headers are too large. Signing out and in again may help.",
    http_error: "The server refused the request.",
    invalid_signature: "The request's signature is not valid.",
    scanner_keys_unavailable: "The service is briefly unavailable. {retry}",
    reports_busy: "The service is busy. {retry}",
    internal: "Something went wrong on the server. {retry}",
    unreachable: "Could not reach the server. Check your connection, then try again.",
    forbidden: "You are not allowed to do this.",
    server_error: "The server is having trouble. {retry}",
    unknown: "The server refused the request:",
  },
  fields: {
    "name.missing": "Give the key a name.",
    "name.string_too_short": "Give the key a name.",
    "name.string_too_long": "Use a name of at most 100 characters.",
    "name.value_error": "Use a name without control or text-direction characters.",
    "scopes.missing": "Choose at least one scope.",
    "scopes.too_short": "Choose at least one scope.",
    "scopes.literal_error": "A chosen scope is not offered any more: reload the page.",
    "scopes.value_error": "Choose each scope once.",
    "tier.literal_error": "Choose one of the tiers offered.",
    "expiresAt.datetime_future": "Choose a day in the future.",
    "expiresAt.less_than_equal": "Choose an earlier day.",
    "expiresAt.datetime_parsing": "Enter a valid date.",
    "allowedIps.value_error":
      "Enter addresses or CIDR ranges, one per line, such as 203.0.113.7 or 10.0.0.0/8.",
    "allowedIps.too_long": "Use at most 100 addresses or ranges.",
    "allowedIps.string_too_long": "An address or range is too long.",
    "environment.literal_error": "Choose one of the environments offered.",
  },
  labels: {
    owner: "Keys of",
    ownKeys: "You (your own keys)",
    organizationKeys: "Keys of {organization}",
    createForOrganization: "Create an API key for {organization}",
    environment: "Environment",
    defaultEnvironment: "{environment} (default)",
    allowedIps: "Allowed IP addresses",
    resources: "Limited to",
    lastUsedFrom: "from {address}",
    allowedIpsHint:
      "Optional: one address or CIDR range per line (203.0.113.7, 10.0.0.0/8). Empty: usable from anywhere.",
    edit: "Edit",
    editLabel: "Edit {name}",
    disable: "Disable",
    disableLabel: "Disable {name}",
    enable: "Enable",
    enableLabel: "Enable {name}",
    editTitle: "Edit “{name}”",
    save: "Save changes",
    disabledAnnouncement: "Key “{name}” disabled: its requests are refused until you enable it.",
    enabledAnnouncement: "Key “{name}” enabled.",
    updatedAnnouncement: "Key “{name}” saved.",
    loadMore: "Show more keys",
    quota: "Quota",
    quotaUsed: "{used} / {limit} requests this {period}",
    quotaResets: "Resets {time}",
    credits: "Credits",
    creditsRemaining: "{remaining} left",
    creditsRefill: "Back to {amount} on {time}",
    creditsNoRefill: "No refill",
    periodDay: "day",
    periodWeek: "week",
    periodMonth: "month",
    budgets: "Budgets",
    budgetKey: "This key",
    budgetOwn: "Its own",
    budgetOwner: "All your keys",
    budgetStanding: "{spent} spent · {held} held · {left} left of {limit} this {period}",
    budgetResets: "Whole again {time}",
    auditLog: "Activity",
    auditLogEmpty: "No activity recorded.",
    auditLogLoading: "Loading activity…",
    olderEvents: "Show older activity",
    actorUser: "by {id}",
    actorOperator: "by the service",
    actorSystem: "by Keyward",
    actorScanner: "by a secret scanner ({id})",
    actorOther: "by {type}",
  },
  eventTypes: {
    "key.created": "Created",
    "key.rotated": "Rotated",
    "key.updated": "Changed",
    "key.disabled": "Disabled",
    "key.enabled": "Enabled",
    "key.revoked": "Revoked",
    "key.expiring": "Expiring soon",
    "key.inactive": "Unused: to be disabled",
    "key.leaked": "Reported leaked",
    "key.revealed": "Secret shown again",
    "key.imported": "Imported",
    "quota.threshold": "Quota threshold reached",
    "credits.exhausted": "Credits used up",
  },
};

/** A message with its `{placeholders}` filled in; a placeholder without a value stays as it is. */
export function fill(message: string, values: Record<string, string | number>): string {
  return message.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}

/** The entries of a group a host gave a string: `{ loading: undefined }` keeps the default. */
function definedOnly<Group extends object>(group: Partial<Group> | undefined): Partial<Group> {
  return Object.fromEntries(
    Object.entries(group ?? {}).filter((entry) => typeof entry[1] === "string"),
  ) as Partial<Group>;
}

/** The defaults with a host's override on top, group by group. */
export function mergeMessages(override: KeywardMessagesOverride | undefined): KeywardMessages {
  return {
    states: { ...defaultMessages.states, ...definedOnly(override?.states) },
    errors: { ...defaultMessages.errors, ...definedOnly(override?.errors) },
    fields: {
      ...defaultMessages.fields,
      ...(definedOnly(override?.fields) as Record<string, string>),
    },
    labels: { ...defaultMessages.labels, ...definedOnly(override?.labels) },
    eventTypes: {
      ...defaultMessages.eventTypes,
      ...(definedOnly(override?.eventTypes) as Record<string, string>),
    },
  };
}
