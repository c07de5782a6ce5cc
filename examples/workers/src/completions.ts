/**
 * `POST /api/v1/completions` on the Worker (demo contract v0.4): `withHold` reserves `max_tokens`
 * from the key's credits, in the `KeywardObject` that counts them, and records the hold in the
 * `holds` object (`budgets({ holds: store.holds })`); the answer's body is a `settlingStream` of
 * `use` chunks, which settles what the client took when it ends, or when the client cancels it. A
 * body that is not the contract's is a 422 that spends nothing.
 *
 * The stream outlives the fetch handler's return, and Workers end a request's work once its
 * response is sent and what `ctx.waitUntil` was given is done: each settle (or release) is handed
 * to `pending`, which the Worker waits for before it closes that request's Keyward. A hold whose
 * settle never ran (the isolate evicted mid-stream) is released whole by the `holds` object's
 * alarm at its TTL.
 */
import { isKeywardError, type Keyward } from "@keyward/core";
import { type BudgetsApi, settlingStream } from "@keyward/core/budgets";
import {
  COMPLETION_STREAM_HEADERS,
  COMPLETIONS_PATH,
  COMPLETIONS_ROUTE,
  COMPLETIONS_SCOPES,
  completionChunks,
  parseCompletionRequest,
  tokensToReserve,
} from "@keyward/example-demo/completions";
import { withHold } from "@keyward/fetch";

/** Answers the completions path, or null for any other. */
export function completionsRoute(
  keyward: Keyward & { budgets: BudgetsApi },
  clientIp: (request: Request) => string | undefined,
  /** Given each hold's ending (settle or release), for `ctx.waitUntil`. */
  pending: (ending: Promise<unknown>) => void,
): (request: Request) => Promise<Response | null> {
  const complete = withHold(
    keyward,
    {
      scopes: [...COMPLETIONS_SCOPES],
      route: COMPLETIONS_ROUTE,
      clientIp,
      // Read from a copy: the handler reads the body itself once the key is admitted.
      reserve: async (request) =>
        tokensToReserve(
          await request
            .clone()
            .json()
            .catch(() => null),
        ),
    },
    async (request, _principal, hold) => {
      let use: number;
      try {
        ({ use } = parseCompletionRequest(await request.json().catch(() => null)));
      } catch (error) {
        await hold.release();
        if (isKeywardError(error)) return error.toResponse();
        throw error;
      }
      let ended: () => void = () => {};
      pending(
        new Promise<void>((resolve) => {
          ended = resolve;
        }),
      );
      return new Response(
        settlingStream(hold, completionChunks(use), {
          onSettled: () => ended(),
          onError: (error) => {
            console.error("keyward: settling a completion's hold failed", error);
            ended();
          },
        }),
        { headers: COMPLETION_STREAM_HEADERS },
      );
    },
  );
  return async (request) => {
    if (new URL(request.url).pathname !== COMPLETIONS_PATH) return null;
    if (request.method !== "POST") {
      return Response.json(
        { detail: "Method Not Allowed", code: "method_not_allowed" },
        { status: 405, headers: { Allow: "POST" } },
      );
    }
    return complete(request);
  };
}
