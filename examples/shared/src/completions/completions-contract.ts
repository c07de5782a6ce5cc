/**
 * The demo contract's completions route (v0.4): `POST /api/v1/completions` with scope
 * `completions:write` and the body `{ "max_tokens": n, "use": m }` (whole numbers, m ≤ n). It
 * reserves n from the key's credits, streams m chunks of `text/event-stream` (one `data:` line
 * each, about 5 ms apart), then settles m; a client that aborts mid-stream pays for the chunks sent.
 * A key without credits is limited as any request (nothing is held). What each framework does with
 * these parts is in its example's `completions.ts`.
 */
import { KeywardError, type ValidationIssue } from "@keyward/core";

export const COMPLETIONS_PATH = "/api/v1/completions";

/** The route as usage reports and `reserve` name it. */
export const COMPLETIONS_ROUTE = `POST ${COMPLETIONS_PATH}`;

export const COMPLETIONS_SCOPES = ["completions:write"] as const;

/** The scope the demo lists beside the contract's four, with its description. */
export const COMPLETIONS_SCOPE_DESCRIPTIONS = {
  "completions:write": "Create completions",
} as const;

/** The pause between two chunks of the stream. */
export const CHUNK_INTERVAL_MS = 5;

export interface CompletionRequest {
  /** What is held from the key's credits: the most the request may spend. */
  max_tokens: number;
  /** How many chunks are streamed, and then settled. */
  use: number;
}

const isWhole = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/**
 * What to hold for a body, read before the key is checked: `max_tokens` when it is a whole number,
 * else 0 (the body is refused with 422 once the key is admitted, holding nothing).
 */
export function tokensToReserve(body: unknown): number {
  const maxTokens = (body as { max_tokens?: unknown } | null)?.max_tokens;
  return isWhole(maxTokens) ? maxTokens : 0;
}

/** The body, checked; throws a 422 `validation_failed` with FastAPI-style issues otherwise. */
export function parseCompletionRequest(body: unknown): CompletionRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new KeywardError("validation_failed", [
      { loc: ["body"], msg: "Input should be an object", type: "model_type" },
    ]);
  }
  const { max_tokens: maxTokens, use } = body as Record<string, unknown>;
  const issues: ValidationIssue[] = [];
  for (const [name, value] of [
    ["max_tokens", maxTokens],
    ["use", use],
  ] as const) {
    if (value === undefined) {
      issues.push({ loc: ["body", name], msg: "Field required", type: "missing" });
    } else if (!isWhole(value)) {
      issues.push({
        loc: ["body", name],
        msg: "Input should be a whole number greater than or equal to 0",
        type: "int_type",
      });
    }
  }
  if (issues.length === 0 && (use as number) > (maxTokens as number)) {
    issues.push({
      loc: ["body", "use"],
      msg: "Input should be less than or equal to max_tokens",
      type: "less_than_equal",
    });
  }
  if (issues.length > 0) throw new KeywardError("validation_failed", issues);
  return { max_tokens: maxTokens as number, use: use as number };
}

/** The stream's headers. */
export const COMPLETION_STREAM_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
} as const;

const encoder = new TextEncoder();

/** Chunk `index` of a completion: one `data:` line, one event. */
export function completionChunk(index: number): Uint8Array {
  return encoder.encode(`data: ${JSON.stringify({ index, text: `token ${index}` })}\n\n`);
}

/**
 * The `use` chunks of a completion, about `CHUNK_INTERVAL_MS` apart: the first at once. Stops early
 * when its consumer stops pulling (a cancelled stream returns the generator).
 */
export async function* completionChunks(use: number): AsyncGenerator<Uint8Array> {
  for (let index = 0; index < use; index++) {
    if (index > 0) await new Promise((resolve) => setTimeout(resolve, CHUNK_INTERVAL_MS));
    yield completionChunk(index);
  }
}
