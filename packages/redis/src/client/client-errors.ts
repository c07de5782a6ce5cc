/**
 * Both drivers' clients are EventEmitters that emit 'error' whenever their connection fails, and
 * again on every reconnection attempt while the server is down. With no listener, node-redis's
 * emitter throws (the process ends) and ioredis prints "[ioredis] Unhandled error event" on each
 * attempt: dozens of lines for one outage, none saying which library was affected. The store
 * therefore listens on the client it is given and reports through its `onError`, once per outage:
 * after one report it stays quiet until the client is 'ready' again.
 */

interface ErrorEmitter {
  on(event: "error" | "ready", listener: (error?: unknown) => void): unknown;
  removeListener(event: "error" | "ready", listener: (error?: unknown) => void): unknown;
}

function isErrorEmitter(client: unknown): client is ErrorEmitter {
  const emitter = client as Partial<ErrorEmitter> | null;
  return typeof emitter?.on === "function" && typeof emitter.removeListener === "function";
}

/**
 * Reports the first connection error of each outage of `client` to `onError`; returns how to stop
 * listening (the client is the caller's, so the listeners must not outlive the store).
 */
export function reportClientErrors(client: unknown, onError: (error: unknown) => void): () => void {
  if (!isErrorEmitter(client)) return () => {};
  let reported = false;
  const onClientError = (error: unknown) => {
    if (reported) return;
    reported = true;
    onError(error);
  };
  const onReady = () => {
    reported = false;
  };
  client.on("error", onClientError);
  client.on("ready", onReady);
  return () => {
    client.removeListener("error", onClientError);
    client.removeListener("ready", onReady);
  };
}
