/**
 * The instrument, span and attribute names, as docs/observability.md lists them: every name is
 * `keyward.`-prefixed so it cannot collide with an application's own. OpenTelemetry's conventions:
 * dotted lower-case names, the unit in `unit` rather than in the name (Prometheus adds `_seconds`,
 * `_total`).
 */
export const instrumentNames = {
  verifications: "keyward.verifications",
  verifyDuration: "keyward.verify.duration",
  limitRefusals: "keyward.limit.refusals",
  storeDuration: "keyward.store.duration",
  storeBreaker: "keyward.store.breaker",
  webhookDeliveries: "keyward.webhook.deliveries",
  webhookBacklog: "keyward.webhook.backlog",
  meteringExports: "keyward.metering.exports",
  meteringBacklog: "keyward.metering.backlog",
  meteringLedgerFailures: "keyward.metering.ledger_failures",
} as const;

export const spanNames = {
  verify: "keyward.verify",
  storeCall: "keyward.store",
} as const;

export const attributeNames = {
  outcome: "keyward.outcome",
  principalKind: "keyward.principal.kind",
  tier: "keyward.tier",
  layer: "keyward.layer",
  keyId: "keyward.key.id",
  httpStatus: "http.response.status_code",
  store: "keyward.store",
  operation: "keyward.operation",
  /** A webhook attempt's end: delivered, retrying, dead. */
  status: "keyward.status",
  /** A metering sink's name: stripe, openmeter, cloudevents. */
  sink: "keyward.sink",
} as const;

/** The instrumentation scope every meter and tracer is named with. */
export const scopeName = "@keyward/otel";
