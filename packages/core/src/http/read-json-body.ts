import { KeywardError } from "../errors/keyward-error.js";
import { maxBodyNesting, nestsDeeperThan } from "../validation/json-nesting.js";

/** Body size limit when none is configured: key-management bodies are a few hundred bytes. */
export const defaultBodyLimit = 64 * 1024;

const missingBody = Symbol("missing body");

/**
 * Reads and parses a JSON body, refusing more than `limit` bytes without buffering them: a
 * `Content-Length` over the limit is refused up front, and a chunked body is cut off as soon as it
 * passes the limit.
 * Returns `missingBody` for an empty body, so the caller can report it as a validation problem.
 */
export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  const text = await readText(request, limit);
  if (text.trim() === "") return missingBody;
  if (nestsDeeperThan(text, maxBodyNesting)) throw tooDeep();
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new KeywardError("malformed_body", "Malformed JSON in request body", { cause });
  }
}

export function isMissingBody(value: unknown): value is typeof missingBody {
  return value === missingBody;
}

async function readText(request: Request, limit: number): Promise<string> {
  const bytes = await readBodyBytes(request, limit);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (cause) {
    throw new KeywardError("malformed_body", "Request body is not valid UTF-8", { cause });
  }
}

/**
 * The body's bytes exactly as they arrived, at most `limit` of them (413 past it, without
 * buffering the rest): for what is signed over the raw body, such as a secret-scanning report.
 */
export async function readBodyBytes(
  request: Request,
  limit: number,
): Promise<Uint8Array<ArrayBuffer>> {
  refuseDeclaredOverLimit(request, limit);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch((cause: unknown) => {
      // The client went away mid-body, or a server cut it off (a request timeout): its request is
      // what failed, not the server, so this is no 500 for the error log.
      throw new KeywardError("malformed_body", "Request body could not be read to its end", {
        cause,
      });
    });
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** 413 for a `Content-Length` over `limit`, from the header alone: nothing of the body is read. */
export function refuseDeclaredOverLimit(request: Request, limit: number): void {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
}

/** A body nested past `maxBodyNesting`: refused before it is parsed (`json-nesting.ts`). */
export function tooDeep(): KeywardError {
  return new KeywardError(
    "malformed_body",
    `JSON in request body is nested deeper than ${maxBodyNesting} levels`,
  );
}

function tooLarge(limit: number): KeywardError {
  return new KeywardError("body_too_large", `Request body is larger than ${limit} bytes`);
}
