/**
 * Delivery ids: `whd_` + the event id's 24 random characters + `_` + the endpoint id. Derived, not
 * random, so that every store (a Lua script included) makes the same id for the same pair, and
 * dispatching an event twice could never make two deliveries for one endpoint.
 */
const endpointIdPattern = /^[A-Za-z0-9_-]{1,64}$/;
const deliveryIdPattern = /^whd_[0-9A-Za-z]{24}_[A-Za-z0-9_-]{1,64}$/;

export function isEndpointId(value: unknown): value is string {
  return typeof value === "string" && endpointIdPattern.test(value);
}

export function isWebhookDeliveryId(value: unknown): value is string {
  return typeof value === "string" && deliveryIdPattern.test(value);
}

export function webhookDeliveryId(eventId: string, endpointId: string): string {
  return `whd_${eventId.slice("evt_".length)}_${endpointId}`;
}
