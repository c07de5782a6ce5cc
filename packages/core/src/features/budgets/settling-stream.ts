/**
 * A response body that settles its hold: a WHATWG `ReadableStream` (Fetch, Hono, Workers, Bun,
 * Deno, and Node's `Readable.fromWeb`) that passes `source` through, counting what each chunk
 * costs as the client takes it, and
 *
 * - settles what was sent once the source is done (`spent` may replace that count with the usage the
 *   upstream reported in its last chunk, the way an LLM API reports tokens);
 * - on a client's abort (the stream cancelled), settles what was already sent, or releases the
 *   hold whole with `onAbort: "release"`, as the host chooses;
 * - if the source fails, settles what was sent (the host's handler may release instead).
 *
 * The hold ends exactly once whichever comes first; a failure to settle is reported, never thrown
 * into the response.
 */
import type { Hold, HoldOutcome } from "./holds.js";

export interface SettlingStreamOptions<T> {
  /** What one chunk costs (tokens, events); default 1 a chunk. */
  cost?: (chunk: T) => number;
  /** On a client's abort: settle what was sent (the default), or give the hold back whole. */
  onAbort?: "sent" | "release";
  /** The amount to settle when the source ends, instead of what was counted. */
  spent?: (counted: number) => number;
  /** Told how the hold ended (a meter, a log line). */
  onSettled?: (outcome: HoldOutcome) => void;
  /** Where a failure to settle goes; default `console.error`. */
  onError?: (error: unknown) => void;
}

export function settlingStream<T>(
  hold: Pick<Hold, "settle" | "release">,
  source: ReadableStream<T> | AsyncIterable<T>,
  options: SettlingStreamOptions<T> = {},
): ReadableStream<T> {
  const costOf = options.cost ?? (() => 1);
  const onError =
    options.onError ?? ((error) => console.error("Keyward: settling a hold failed", error));
  const iterator =
    source instanceof ReadableStream
      ? readerIterator(source.getReader())
      : source[Symbol.asyncIterator]();
  let sent = 0;
  let ended = false;
  const end = (how: "settle" | "release", amount: number) => {
    if (ended) return;
    ended = true;
    const ending = how === "release" ? hold.release() : hold.settle(amount);
    ending.then((outcome) => options.onSettled?.(outcome), onError);
  };
  return new ReadableStream<T>(
    {
      async pull(controller) {
        let next: IteratorResult<T>;
        try {
          next = await iterator.next();
        } catch (error) {
          end("settle", sent);
          controller.error(error);
          return;
        }
        if (next.done) {
          end("settle", options.spent ? options.spent(sent) : sent);
          controller.close();
          return;
        }
        // Counted as it is handed on: a chunk the client never takes is not paid for.
        sent += costOf(next.value);
        controller.enqueue(next.value);
      },
      async cancel(reason) {
        end(options.onAbort === "release" ? "release" : "settle", sent);
        await iterator.return?.(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

function readerIterator<T>(reader: ReadableStreamDefaultReader<T>): AsyncIterator<T> {
  return {
    next: () => reader.read() as Promise<IteratorResult<T>>,
    async return(reason?: unknown) {
      await reader.cancel(reason);
      return { done: true, value: undefined };
    },
  };
}
