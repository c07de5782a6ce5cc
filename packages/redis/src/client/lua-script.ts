/**
 * A Lua script with its SHA-1, computed once, so the store can send `EVALSHA` (40 bytes) on the
 * hot path and the full source only when a server has not seen it yet.
 */
import { createHash } from "node:crypto";

export interface LuaScript {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

export function luaScript(name: string, source: string): LuaScript {
  return { name, source, sha: createHash("sha1").update(source).digest("hex") };
}

/**
 * `NOSCRIPT`: the server (or, on a cluster, the node that owns the slot) has not cached the script,
 * after a restart, a failover or `SCRIPT FLUSH`. `EVAL` runs it and caches it there.
 */
export function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("NOSCRIPT");
}
