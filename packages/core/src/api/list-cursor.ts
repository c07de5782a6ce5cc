import { KeywardError } from "../errors/keyward-error.js";
import type { KeyListCursor } from "../storage/key-store.js";

/**
 * Page cursors: the position of the last key of a page (its creation time and id), as opaque
 * base64url text. Keyset, not offset: a key created or revoked between two pages neither repeats
 * nor skips one. The cursor holds nothing secret; a forged one only moves the page start.
 */
export function encodeListCursor(position: KeyListCursor): string {
  const bytes = new TextEncoder().encode(`${position.createdAt}.${position.id}`);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * A page out of `limit + 1` rows read in time order: the first `limit`, shown as `show` does, and the
 * cursor after the last of them when the extra row says another page exists (no count needed).
 */
export function pageOf<Row extends { occurredAt: number; id: string }, Shown>(
  found: readonly Row[],
  limit: number,
  show: (row: Row) => Shown,
): { data: Shown[]; nextCursor: string | null } {
  const data = found.slice(0, limit);
  const last = data.at(-1);
  return {
    data: data.map(show),
    nextCursor:
      found.length > limit && last
        ? encodeListCursor({ createdAt: last.occurredAt, id: last.id })
        : null,
  };
}

/**
 * The position a cursor names, or a 422 at `["query", "cursor"]` for text no page handed out.
 * Forged cursors are decoded text from anyone, so what reaches a store is held to what a page could
 * have handed out: an id of the listing's own shape (`isId`: a key id, an event id, a delivery id,
 * so no NUL byte or other character a store refuses) and a time a `Date` can hold.
 */
export function decodeListCursor(cursor: string, isId: (id: string) => boolean): KeyListCursor {
  const position = tryDecode(cursor);
  if (position && isId(position.id) && isPositionTime(position.createdAt)) return position;
  throw new KeywardError("validation_failed", [
    {
      loc: ["query", "cursor"],
      msg: "Value error, not a cursor this API issued",
      type: "value_error",
    },
  ]);
}

function tryDecode(cursor: string): KeyListCursor | null {
  if (cursor.length === 0 || cursor.length > 400 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  let text: string;
  try {
    const binary = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    text = new TextDecoder("utf-8", { fatal: true }).decode(
      Uint8Array.from(binary, (char) => char.charCodeAt(0)),
    );
  } catch {
    return null;
  }
  const dot = text.indexOf(".");
  const createdAt = Number(text.slice(0, dot));
  const id = text.slice(dot + 1);
  if (dot <= 0 || !Number.isSafeInteger(createdAt) || id.length === 0) return null;
  return { createdAt, id };
}

/** The times a JavaScript `Date` can hold (and so every store): ±8.64e15 ms around the epoch. */
const maxTime = 8.64e15;

function isPositionTime(time: number): boolean {
  return time >= 0 && time <= maxTime;
}

/** The page size rule: a whole number from 1 to 1,000 (422 at `["query", "limit"]` otherwise). */
export const maxPageSize = 1000;

export function parsePageSize(value: unknown): number {
  const limit = typeof value === "string" && /^\d{1,4}$/.test(value) ? Number(value) : value;
  if (typeof limit === "number" && Number.isInteger(limit) && limit >= 1 && limit <= maxPageSize) {
    return limit;
  }
  throw new KeywardError("validation_failed", [
    {
      loc: ["query", "limit"],
      msg: `Input should be a whole number from 1 to ${maxPageSize}`,
      type: "value_error",
    },
  ]);
}
