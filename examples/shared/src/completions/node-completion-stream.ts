/**
 * The completion stream written to a Node response (Express, Fastify): each chunk is counted with
 * `sent(1)` once it is written, so the hold settles what was written when the response ends, or,
 * when the client goes away first, what was written until then. A closed socket stops the stream.
 */
import type { ServerResponse } from "node:http";
import { COMPLETION_STREAM_HEADERS, completionChunks } from "./completions-contract.js";

export async function writeCompletionStream(
  res: ServerResponse,
  use: number,
  sent: (n: number) => void,
): Promise<void> {
  res.writeHead(200, COMPLETION_STREAM_HEADERS);
  res.flushHeaders();
  for await (const chunk of completionChunks(use)) {
    // The client went away: nothing more is written, nor paid for.
    if (res.destroyed || res.writableEnded) return;
    res.write(chunk);
    sent(1);
  }
  res.end();
}
