/**
 * A `pg` pool emits 'error' when one of its idle connections fails (the server restarted, a
 * pooler or firewall dropped it, `pg_terminate_backend`). An EventEmitter with no 'error' listener
 * throws that error, which ends the Node process: one database restart would take every instance
 * down. The store therefore listens on the pool it is given and reports through its `onError`;
 * the pool has already dropped the connection and opens a new one when next needed.
 */
import { isPoolLike } from "../client.js";

interface ErrorEmitter {
  on(event: "error", listener: (error: Error) => void): unknown;
  removeListener(event: "error", listener: (error: Error) => void): unknown;
}

/** Listens for the idle-connection errors of `client` if it is a pool; returns how to stop. */
export function reportPoolErrors(client: unknown, onError: (error: unknown) => void): () => void {
  const emitter = client as Partial<ErrorEmitter> | null;
  if (
    !isPoolLike(client) ||
    typeof emitter?.on !== "function" ||
    typeof emitter.removeListener !== "function"
  ) {
    return () => {};
  }
  const listener = (error: Error) => onError(error);
  emitter.on("error", listener);
  return () => emitter.removeListener?.("error", listener);
}
