/**
 * The instance's one event bus: features publish what happened and subscribe to what others
 * publish, instead of each holding a slot of the kernel. Topics are dotted names; a subscription
 * names one topic (`webhook.attempted`) or every topic under a prefix (`key.*`, `usage.*`).
 *
 * | topic                 | published by          | message                                   |
 * |-----------------------|-----------------------|-------------------------------------------|
 * | `key.*`, `quota.*`, `credits.*` | `events()` | each event once committed, under its type |
 * | a feature's declared types (`token.issued`…) | `events()` once written, else the feature | its event (`event-model/event-types.ts`) |
 * | `webhook.attempted`   | `webhooks()`          | `{ status }`: a delivery attempt ended    |
 * | `webhook.backlog`     | `webhooks()`          | `{ read(max) }`, once the instance is built |
 *
 * Delivery is synchronous, in the order of subscription. A listener that throws is reported (the
 * `onError` hook and the logger) and the others still hear the message: a subscriber never breaks
 * the publisher's work.
 */
export interface EventBus {
  publish(topic: string, message: unknown): void;
  /** Returns the unsubscribe. `pattern`: a topic, or a prefix and `.*`. */
  subscribe(pattern: string, listener: (message: unknown, topic: string) => void): () => void;
}

export function eventBus(reportFailure: (message: string, cause: unknown) => void): EventBus {
  const subscriptions: { pattern: string; listener: (message: unknown, topic: string) => void }[] =
    [];
  const matches = (pattern: string, topic: string) =>
    pattern === topic || (pattern.endsWith(".*") && topic.startsWith(pattern.slice(0, -1)));
  return {
    publish(topic, message) {
      for (const { pattern, listener } of subscriptions) {
        if (!matches(pattern, topic)) continue;
        try {
          listener(message, topic);
        } catch (error) {
          reportFailure(`a subscriber to ${topic} failed`, error);
        }
      }
    },
    subscribe(pattern, listener) {
      const subscription = { pattern, listener };
      subscriptions.push(subscription);
      return () => {
        const index = subscriptions.indexOf(subscription);
        if (index >= 0) subscriptions.splice(index, 1);
      };
    },
  };
}
